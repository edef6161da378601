/** Debian's Chromium, installed by .ci/run; Playwright never downloads a browser here. */
export const chromiumPath = '/usr/bin/chromium';
/** The flags this machine needs: no sandbox as root, no GPU, and none of the background connections its closed network refuses. */
export const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] as const;
