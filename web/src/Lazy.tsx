import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from './i18n';

/** A page loaded on first visit, so the buyer's bundle carries no organizer or door code. */
export function Lazy<P extends object>({ load, props }: { load: () => Promise<ComponentType<P>>; props: P }) {
  const [Page, setPage] = useState<ComponentType<P> | null>(null);
  useEffect(() => {
    let alive = true;
    void load().then((c) => alive && setPage(() => c));
    return () => {
      alive = false;
    };
  }, [load]);
  return Page === null ? <p role="status">{t('loading')}</p> : <Page {...props} />;
}
