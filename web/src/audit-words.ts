import { t, type MessageKey } from './i18n';

/**
 * The audit log's words (issue 35 item 9): an entry's action `<entity>.<verb>` (show.created,
 * flash_sale.taken_offline, user.role_granted) and entity types in the page's language. An action
 * the catalogs do not know yet reads as it is stored.
 */
const entityKeys: Readonly<Record<string, MessageKey>> = {
  show: 'auditEntityShow', flash_sale: 'auditEntityFlashSale', code_pool: 'auditEntityCodePool', bargain: 'auditEntityBargain',
  user: 'auditEntityUser', webhook: 'auditEntityWebhook', order: 'auditEntityOrder', blocklist: 'auditEntityBlocklist',
  discount: 'auditEntityDiscount', waiting_room: 'auditEntityWaitingRoom',
};
const verbKeys: Readonly<Record<string, MessageKey>> = {
  created: 'auditVerbCreated', edited: 'auditVerbEdited', cancelled: 'auditVerbCancelled', taken_offline: 'auditVerbTakenOffline',
  published: 'auditVerbPublished', deleted: 'auditVerbDeleted', added: 'auditVerbAdded', lifted: 'auditVerbLifted',
  disabled: 'auditVerbDisabled', set: 'auditVerbSet', role_granted: 'auditVerbRoleGranted', role_withdrawn: 'auditVerbRoleWithdrawn',
  role_changed: 'auditVerbRoleChanged', role_confirmed: 'auditVerbRoleConfirmed',
};
const roleKeys: Readonly<Record<string, MessageKey>> = { BUYER: 'roleBUYER', STAFF: 'roleSTAFF', ADMIN: 'roleADMIN' };

/** A changed field by the name the organizer's forms give it; other fields read as stored. */
const fieldKeys: Readonly<Record<string, MessageKey>> = {
  title: 'title', venue: 'venue', city: 'city', startsAt: 'startsAt', saleStartsAt: 'saleStartsAt', saleEndsAt: 'saleEndsAt',
  description: 'description', imageUrl: 'auditFieldImageUrl', currency: 'currency', username: 'username', role: 'auditFieldRole',
  reason: 'auditFieldReason', status: 'auditFieldStatus', refundUntilHoursBefore: 'auditFieldRefundHours', exchangeUntilHoursBefore: 'auditFieldExchangeHours',
};

export const fieldText = (field: string): string => (fieldKeys[field] === undefined ? field : t(fieldKeys[field] as MessageKey));
export const entityText = (type: string): string => (entityKeys[type] === undefined ? type : t(entityKeys[type] as MessageKey));
export const roleText = (role: string): string => (roleKeys[role] === undefined ? role : t(roleKeys[role] as MessageKey));

export function actionText(action: string): string {
  const dot = action.indexOf('.');
  const entity = entityKeys[action.slice(0, dot)];
  const verb = verbKeys[action.slice(dot + 1)];
  if (dot < 0 || entity === undefined || verb === undefined) return action;
  return t(verb, { entity: t(entity) });
}
