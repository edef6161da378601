import { signal } from '@preact/signals';

/** navigator.onLine, live: the offline indicator and the door page's queue both follow it. */
export const online = signal(navigator.onLine);
addEventListener('online', () => {
  online.value = true;
});
addEventListener('offline', () => {
  online.value = false;
});
