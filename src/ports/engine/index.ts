import type { AuditStore } from './audit.js';
import type { ChangeLogStore } from './change-log.js';
import type { NotificationStore } from './notifications.js';
import type { FlashSaleStore } from './flash-sales.js';
import type { BargainStore } from './bargains.js';
import type { BlocklistStore } from './blocklist.js';
import type { CodePoolStore } from './code-pools.js';
import type { DiscountStore } from './discounts.js';
import type { ExportStore } from './exports.js';
import type { IdempotencyStore } from './idempotency.js';
import type { InventoryStore } from './inventory.js';
import type { OrderStore } from './orders.js';
import type { OutboxStore } from './outbox.js';
import type { PaymentStore } from './payments.js';
import type { SettingsStore } from './settings.js';
import type { RefundStore, ShowCancellationStore } from './refunds.js';
import type { ExchangeStore } from './exchanges.js';
import type { ShowStore } from './shows.js';
import type { SweepStore } from './sweeps.js';
import type { TicketStore } from './tickets.js';
import type { UserStore } from './users.js';
import type { WebhookStore } from './webhooks.js';
import type { WaitlistStore } from './waitlist.js';
import type { WaitingRoomStore } from './waiting-rooms.js';

export * from './audit.js';
export * from './change-log.js';
export * from './notifications.js';
export * from './code-pools.js';
export * from './common.js';
export * from './discounts.js';
export * from './flash-sales.js';
export * from './bargains.js';
export * from './blocklist.js';
export * from './exports.js';
export * from './idempotency.js';
export * from './inventory.js';
export * from './orders.js';
export * from './outbox.js';
export * from './payments.js';
export * from './refunds.js';
export * from './exchanges.js';
export * from './settings.js';
export * from './shows.js';
export * from './sweeps.js';
export * from './tickets.js';
export * from './users.js';
export * from './webhooks.js';
export * from './waitlist.js';
export * from './waiting-rooms.js';

/**
 * The engine's storage port: named operations, plain data in, typed outcomes out (see common.ts
 * for the conventions). Two kinds of writes:
 * - check-and-take (inventory.ts claims): the adapter decides against the current state;
 * - plans (everything else): the domain decides, the adapter commits compare-and-set updates on
 *   the expected prior state of every row it touches, or answers stale.
 * Adapters: src/adapters/sqlite (default), src/adapters/postgres. A Redis adapter should be able
 * to implement each operation as one Lua script.
 */
export interface Store extends UserStore, ShowStore, InventoryStore, OrderStore, PaymentStore, TicketStore, IdempotencyStore, AuditStore, WebhookStore, SettingsStore, FlashSaleStore, BargainStore, OutboxStore, CodePoolStore, ExportStore, SweepStore, NotificationStore, ChangeLogStore, WaitlistStore, RefundStore, ShowCancellationStore, ExchangeStore, BlocklistStore, WaitingRoomStore, DiscountStore {
  /** Cheap liveness check of the backend (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
