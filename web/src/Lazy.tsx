import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from './i18n';

/**
 * A page loaded on first visit, so the buyer's bundle carries no organizer or door code.
 * The loaded page is kept with the loader it came from: going from one lazy page to another
 * (the campaigns list to "new bargain") reuses this component, and until the new chunk arrives
 * it says "loading" rather than showing the previous page under the new address, where a quick
 * click or keystroke would land in the page being left.
 */
export function Lazy<P extends object>({ load, props }: { load: () => Promise<ComponentType<P>>; props: P }) {
  const [loaded, setLoaded] = useState<{ load: typeof load; Page: ComponentType<P> } | null>(null);
  useEffect(() => {
    let alive = true;
    void load().then((Page) => alive && setLoaded({ load, Page }));
    return () => {
      alive = false;
    };
  }, [load]);
  if (loaded === null || loaded.load !== load) return <p role="status">{t('loading')}</p>;
  const { Page } = loaded;
  return <Page {...props} />;
}
