/** Debian's Chromium, installed by .ci/run; Playwright never downloads a browser here. */
export const chromiumPath = '/usr/bin/chromium';

/**
 * Features the browser tests switch off. Chromium keeps only the last `--disable-features`, so this
 * list repeats the one Playwright passes (playwright-core's chromiumSwitches; test/web/chromium-server.ts
 * warns when a newer Playwright's list has more) and adds the omnibox pop-up that Chromium 15x's
 * headless mode preloads as a WebUI page for every window, that is for every browser context: a
 * renderer of its own that took a quarter of Chromium's CPU time in the browser suites.
 */
export const disabledFeatures = [
  // Playwright's own.
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable', 'LensOverlay',
  'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect', 'TcpPortRandomizationWin', 'OptimizationHints',
  'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch', 'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion',
  'CDPScreenshotNewSurface', 'SkipListAccountsWithoutGaiaCookies',
  // Ours: the preloaded omnibox pop-up (tests never type into an address bar).
  'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup', 'PreloadTopChromeWebUI',
] as const;

/** The flags this machine needs: no sandbox as root, no GPU, and none of the background connections its closed network refuses. */
export const chromiumArgs = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  `--disable-features=${disabledFeatures.join(',')}`,
] as const;

/** Features Playwright switched off in a launch (its `--disable-features`, the first) that the run's list (the last, which Chromium keeps) leaves on. */
export function featuresDropped(spawnArgs: readonly string[]): string[] {
  const lists = spawnArgs.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
  const [playwrights, kept] = [lists[0] ?? [], lists.at(-1) ?? []];
  return playwrights.filter((f) => f !== '' && !kept.includes(f));
}
