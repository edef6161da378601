import { serverNow } from '../api';
import { admissionOf, queueHref } from '../admission';
import { duration } from '../format';
import { useTick } from '../hooks';
import { t } from '../i18n';

/** Shown when a buying request was refused for want of an admission: the way in is the queue. */
export function QueueNeeded({ activityId }: { activityId: string }) {
  return (
    <p class="notice" data-testid="queue-needed">
      {t('queueNeeded')} <a class="button primary" href={queueHref(activityId, location.pathname)} data-testid="join-queue">{t('joinQueue')}</a>
    </p>
  );
}

/** While this tab holds an admission for the activity: how long it lasts (a countdown). */
export function AdmissionLine({ activityId }: { activityId: string }) {
  useTick(1000);
  const held = admissionOf(activityId);
  if (held === null) return null;
  return <p class="notice" role="status" data-testid="admission-countdown">{t('admissionEndsIn', { time: duration(held.until - serverNow()) })}</p>;
}
