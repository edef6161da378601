import { AxeBuilder } from '@axe-core/playwright';
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { expect, inject } from 'vitest';
import { ApiClient } from '../support/api-client.js';
import { chromiumArgs, chromiumPath } from './chromium.js';

export { chromiumPath };
export const hasChromium = existsSync(chromiumPath);
if (!hasChromium) console.warn(`browser tests skipped: ${chromiumPath} not found (apt-get install chromium)`);

const root = resolve(import.meta.dirname, '../..');
export const screenshotDir = join(root, 'test-results', 'screenshots');

/** The browser tests need the built front end (npm test builds it; a targeted run may not have). */
export function ensureWebBuilt(): void {
  if (!existsSync(join(root, 'dist', 'web', 'index.html'))) execSync('npm run build:web --silent', { cwd: root, stdio: 'inherit' });
}

/**
 * The run's one Chromium (test/web/chromium-server.ts), connected to; a file run outside the
 * browser project gets a Chromium of its own. Either way `close()` ends this file's use of it:
 * a connected browser closes the contexts this file opened and disconnects.
 */
export function launch(): Promise<Browser> {
  const endpoint = inject('chromiumWsEndpoint');
  if (endpoint !== undefined && endpoint !== '') return chromium.connect(endpoint);
  return chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs] });
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** A browser context already signed in as `api`'s user (the session the sign-in page would store). */
export async function signedInContext(browser: Browser, api: ApiClient, username: string, role: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  const token = (api as unknown as { token: string }).token;
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 }, ...options });
  const session = JSON.stringify({ token, username, role, expiresAt: Date.now() + 3_600_000 });
  await context.addInitScript((s: string) => {
    // about:blank (a new tab before its first navigation) has no storage of its own.
    if (location.origin === 'null') return;
    if (localStorage.getItem('tr.session') === null) localStorage.setItem('tr.session', s);
  }, session);
  return context;
}

export async function buyerApi(app: FastifyInstance, username: string): Promise<ApiClient> {
  return new ApiClient(app).signUp(username);
}

/** Status letter of a seat as the page's live map sees it. */
export const seatStatus = (page: Page, seatId: string): Promise<string | undefined> =>
  page.evaluate((id) => (window as unknown as { __seatStatus(id: string): string | undefined }).__seatStatus(id), seatId);

export async function clickSeat(page: Page, seatId: string): Promise<void> {
  // The seat map is a lazily loaded chunk: under load it can mount after the page is otherwise up.
  await page.waitForFunction(() => typeof (window as unknown as { __seatMapPoint?: unknown }).__seatMapPoint === 'function', undefined, { timeout: 30_000 });
  const point = await page.evaluate((id) => (window as unknown as { __seatMapPoint(id: string): { x: number; y: number } | null }).__seatMapPoint(id), seatId);
  if (point === null) throw new Error(`seat ${seatId} is not on the map`);
  await page.mouse.click(point.x, point.y);
}

/** axe-core's browser build, injected into a page the first time a document is checked. */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeRun { violations: { id: string; impact?: string | null | undefined; nodes: { target: unknown[] }[] }[] }

/**
 * axe-core on the page as it is: no serious or critical violation (issue 15, accessibility).
 * The app's pages embed no frame, so axe runs in the page itself with every rule, as
 * AxeBuilder's legacy mode does, injected once per document: AxeBuilder injects the 550 kB
 * source again on every call and opens a blank page to merge frame results, about a second of
 * Chromium's time per check against 60-130 ms for the run itself. A page with frames still goes
 * through AxeBuilder, which checks inside them.
 */
export async function noSeriousA11yViolations(page: Page, name: string): Promise<void> {
  if (page.frames().length > 1) return expectNoSerious(name, await new AxeBuilder({ page }).analyze());
  // Evaluated by the debugging protocol, so the page's Content-Security-Policy does not apply.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: { run(context: Document, options: object): Promise<AxeRun> } };
    const run = await axe.run(document, { resultTypes: ['violations'] });
    return { violations: run.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })) };
  });
  expectNoSerious(name, result);
}

function expectNoSerious(name: string, result: AxeRun): void {
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/**
 * What a page must never show: console errors and uncaught exceptions, of one page or of every page
 * of a context. `expected` names console errors a test causes on purpose (Chromium logs the 4xx of
 * an API refusal the page shows as "Failed to load resource").
 */
export function watchConsole(target: Page | BrowserContext, expected?: RegExp): string[] {
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (m.type() === 'error' && !(expected?.test(m.text()) ?? false)) errors.push(`${page.url()}: ${m.text()} ${m.location().url}`);
    });
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  };
  if ('newPage' in target && 'pages' in target) {
    target.pages().forEach(watch);
    target.on('page', watch);
  } else {
    watch(target);
  }
  return errors;
}
