import { availableParallelism, loadavg } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, clickSeat, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';

/**
 * A slice's budget, 50 ms, stretched by the load per core: on a shared two-core machine a busy
 * neighbour stretches any slice; a draw in one go is still caught (its slice is the whole draw,
 * which the tests compare with the draw time).
 */
const sliceBudgetMs = (): number => 50 * Math.max(1, (loadavg()[0] ?? 1) / Math.max(1, availableParallelism()));

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

/** The demo show's map: Stalls 10 × 20 with seats 1 and 20 of row 1 accessible, Balcony 5 × 16. */
const demoSections = [
  { id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 20, priceCents: 12800, accessible: [{ row: 1, number: 1 }, { row: 1, number: 20 }] },
  { id: 'B', name: 'Balcony', rows: 5, seatsPerRow: 16, priceCents: 6800 },
];

interface Timings { drawMs: number; longestSliceMs: number; layoutMs: number }
const timings = (page: Page): Promise<Timings> => page.evaluate(() => (window as unknown as { __seatMapTimings: Timings }).__seatMapTimings);

/** Records the page's long tasks (over 50 ms) from its first moment. */
async function watchLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const tasks: { start: number; duration: number }[] = [];
    (window as unknown as { __longTasks: typeof tasks }).__longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** The long tasks that overlap the last full draw of the map (from its start to its last slice). */
const longTasksWhileDrawing = (page: Page): Promise<number[]> => page.evaluate(() => {
  const from = performance.getEntriesByName('seatmap-draw-start').at(-1)?.startTime ?? 0;
  const to = performance.getEntriesByName('seatmap-drawn').at(-1)?.startTime ?? Infinity;
  const tasks = (window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks;
  return tasks.filter((task) => task.start + task.duration > from && task.start < to).map((task) => Math.round(task.duration));
});

/** Waits until the seat map finished drawing (it draws in slices, frame by frame). */
const drawn = (page: Page) => page.locator('canvas[data-testid=seatmap][data-drawn]').waitFor({ timeout: 30_000 });

/**
 * How many canvas pixels in a box of cells around a seat (dx, dy in cells from the seat; w, h in
 * cells) are dark (text, icon) or light (the icon on a blue seat), read from the canvas itself.
 */
function pixels(page: Page, seatId: string, dx: number, dy: number): Promise<{ dark: number; light: number; total: number }> {
  return page.evaluate(([id, ox, oy]) => {
    const canvas = document.querySelector('canvas[data-testid=seatmap]') as HTMLCanvasElement;
    const point = (window as unknown as { __seatMapPoint(id: string): { x: number; y: number } | null }).__seatMapPoint(id as string);
    const next = (window as unknown as { __seatMapPoint(id: string): { x: number; y: number } | null }).__seatMapPoint((id as string).replace(/-(\d+)$/, (_, n: string) => `-${Number(n) + 1}`));
    if (point === null || next === null) throw new Error('no seat');
    const cell = next.x - point.x;
    const rect = canvas.getBoundingClientRect();
    const scale = canvas.width / rect.width;
    // The cell's square less a pixel or two each side, so the white gap between cells is never read.
    const x = Math.round((point.x - rect.left + (Number(ox) - 0.5) * cell) * scale) + 2;
    const y = Math.round((point.y - rect.top + (Number(oy) - 0.5) * cell) * scale) + 2;
    const size = Math.max(1, Math.floor((cell - 1) * scale) - 4);
    const data = (canvas.getContext('2d') as CanvasRenderingContext2D).getImageData(x, y, size, size).data;
    let dark = 0;
    let light = 0;
    for (let i = 0; i < data.length; i += 4) {
      const sum = (data[i] as number) + (data[i + 1] as number) + (data[i + 2] as number);
      if (sum < 200) dark++;
      if (sum > 600) light++;
    }
    return { dark, light, total: data.length / 4 };
  }, [seatId, dx, dy] as const);
}

describe.skipIf(!hasChromium)('web front end: seat map, refusals in the page language, signing in mid-purchase', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('draws row numbers at both ends, seat numbers, and the wheelchair symbol on accessible seats, said in the legend and the seat name', async () => {
    const showId = await createShow(admin, { sections: demoSections });
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await watchLongTasks(page);
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await drawn(page);
    // The accessible seat carries a light symbol on its blue square; its neighbour is plain.
    const accessibleSeat = await pixels(page, 'A-1-1', 0, 0);
    const plainSeat = await pixels(page, 'A-1-2', 0, 0);
    expect(accessibleSeat.light).toBeGreaterThan(accessibleSeat.total / 20);
    expect(plainSeat.light).toBe(0);
    // Row numbers in the cells left of seat 1 and right of seat 20; seat numbers in the cell above row 1.
    expect((await pixels(page, 'A-4-1', -1, 0)).dark).toBeGreaterThan(0);
    expect((await pixels(page, 'A-4-19', 2, 0)).dark).toBeGreaterThan(0);
    expect((await pixels(page, 'A-1-5', 0, -1)).dark).toBeGreaterThan(0);
    // A plain free seat has no dark mark: the numbers are beside the seats, not over them.
    expect((await pixels(page, 'A-5-5', 0, 0)).dark).toBe(0);
    await page.getByTestId('legend-accessible').getByText('Wheelchair accessible').waitFor();
    const map = page.getByRole('application', { name: 'Seat map' });
    await map.focus();
    await expect(page.locator('#seatmap-focus').textContent()).resolves.toBe('Stalls, row 1, seat 1, wheelchair accessible, available, CN¥128.00');
    await page.keyboard.press('ArrowRight');
    await expect(page.locator('#seatmap-focus').textContent()).resolves.toBe('Stalls, row 1, seat 2, available, CN¥128.00');
    // The demo show's draw is one short slice. Long tasks around it are reported, not asserted:
    // on a shared two-core machine a busy neighbour stretches any task past 50 ms.
    const demo = await timings(page);
    console.log(`demo show: draw ${demo.drawMs.toFixed(1)} ms, longest slice ${demo.longestSliceMs.toFixed(1)} ms, long tasks while drawing: ${(await longTasksWhileDrawing(page)).join(', ') || 'none'} ms`);
    expect(demo.longestSliceMs).toBeLessThan(sliceBudgetMs());
    // Keyboard help is shown with a mouse and a keyboard...
    await expect(page.locator('.keyboard-help').isVisible()).resolves.toBe(true);
    await shot(page, 'seatmap-labels-accessible');
    await noSeriousA11yViolations(page, 'show page with accessible seats');
    expect(errors).toEqual([]);
    await context.close();
    // ...not on a touch screen; in Chinese the seat's name says it too.
    const phone = await browser.newContext({ locale: 'zh-CN', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const mobile = await phone.newPage();
    await mobile.goto(`${t.baseUrl}/shows/${showId}`);
    await drawn(mobile);
    await expect(mobile.locator('.keyboard-help').isVisible()).resolves.toBe(false);
    await expect(mobile.locator('#seatmap-help').textContent()).resolves.toContain('点击或轻触座位即可选择。');
    await mobile.getByTestId('legend-accessible').getByText('无障碍轮椅席').waitFor();
    await mobile.getByRole('application', { name: '座位图' }).focus();
    await expect(mobile.locator('#seatmap-focus').textContent()).resolves.toBe('Stalls 1 排 1 座，无障碍轮椅席，可选，¥128.00');
    await shot(mobile, 'seatmap-accessible-zh-phone');
    await phone.close();
  });

  it('draws a 100,000-seat map in slices of a few milliseconds per frame, zoomed out and in', async () => {
    const sections = Array.from({ length: 10 }, (_, i) => ({ id: `S${i}`, name: `Block ${i}`, rows: 100, seatsPerRow: 100, priceCents: 20000 - i * 1000 }));
    const showId = await createShow(admin, { sections });
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await watchLongTasks(page);
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await drawn(page);
    const big = await timings(page);
    const long = await longTasksWhileDrawing(page);
    console.log(`100,000-seat map: layout ${big.layoutMs.toFixed(0)} ms, draw ${big.drawMs.toFixed(0)} ms in slices, longest slice ${big.longestSliceMs.toFixed(1)} ms, long tasks while drawing: ${long.join(', ') || 'none'} ms`);
    // Drawn in one go (as before) it took one task of the whole draw; in slices none is much over the budget.
    expect(big.longestSliceMs).toBeLessThan(sliceBudgetMs());
    expect(big.drawMs).toBeGreaterThan(big.longestSliceMs);
    // Zoomed in, the numbers come back and the draw is sliced again.
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(async () => (await timings(page)).drawMs !== big.drawMs, { timeout: 30_000 }).toBe(true);
    const zoomed = await longTasksWhileDrawing(page);
    console.log(`zoomed in: draw ${(await timings(page)).drawMs.toFixed(0)} ms, long tasks while drawing: ${zoomed.join(', ') || 'none'} ms`);
    expect((await timings(page)).longestSliceMs).toBeLessThan(sliceBudgetMs());
    await context.close();
  });

  it('tells a buyer the purchase limit in the page language, with how many more they may take', async () => {
    const showId = await createShow(admin, { sections: demoSections, maxSeatsPerUser: 3 });
    for (const [locale, first, again] of [
      ['zh-CN', '本场演出每位买家最多锁定或购买 3 个座位。您还可以再选 3 个。', '本场演出每位买家最多锁定或购买 3 个座位。您还可以再选 1 个。'],
      ['en-US', 'One buyer may hold or buy at most 3 seats of this show. You may take 3 more.', 'One buyer may hold or buy at most 3 seats of this show. You may take 1 more.'],
    ] as const) {
      const name = `limited${++seq}`;
      const buyer = await buyerApi(t.node.app, name);
      const context = await signedInContext(browser, buyer, name, 'BUYER', { locale });
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/shows/${showId}`);
      await drawn(page);
      const row = locale === 'en-US' ? 5 : 6;
      for (const n of [1, 2, 3, 4]) await clickSeat(page, `A-${row}-${n}`);
      await page.getByTestId('hold-selected').click();
      await expect(page.getByTestId('notice').textContent()).resolves.toBe(first);
      // After holding two elsewhere, the figure follows what the buyer already has.
      expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [`B-${row - 4}-1`, `B-${row - 4}-2`] })).status).toBe(201);
      await page.getByTestId('hold-selected').click();
      await expect.poll(() => page.getByTestId('notice').textContent()).toBe(again);
      await shot(page, `purchase-limit-${locale}`);
      await context.close();
    }
  });

  it('takes a signed-out buyer to sign in and back to the same show with the same selection', async () => {
    const showId = await createShow(admin, { sections: demoSections });
    for (const [locale, link, username, submit, hold] of [
      ['en-US', 'Sign in to hold seats.', 'Username', 'Sign in', 'Hold 2 selected seats'],
      ['zh-CN', '请先登录再锁座。', '用户名', '登录', '锁定所选 2 个座位'],
    ] as const) {
      const name = `comeback${++seq}`;
      await buyerApi(t.node.app, name);
      const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/shows/${showId}`);
      await drawn(page);
      const row = locale === 'en-US' ? 3 : 4;
      await clickSeat(page, `A-${row}-4`);
      await clickSeat(page, `A-${row}-5`);
      await page.getByRole('link', { name: link }).click();
      await page.waitForURL(`${t.baseUrl}/signin?next=${encodeURIComponent(`/shows/${showId}`)}`);
      await page.getByLabel(username).fill(name);
      await page.getByLabel(locale === 'en-US' ? 'Password' : '密码').fill('password-123');
      await page.getByRole('main').getByRole('button', { name: submit }).click();
      await page.waitForURL(`${t.baseUrl}/shows/${showId}`);
      await drawn(page);
      await expect(page.getByTestId('hold-selected').textContent()).resolves.toMatch(new RegExp(`^${hold}`));
      await page.getByTestId('hold-selected').click();
      await page.getByTestId('hold-countdown').waitFor();
      await context.close();
    }
  });

  it('sends a signed-out buyer pressing Hold to sign in, keeping the selection; never to another site after signing in', async () => {
    const showId = await createShow(admin, { sections: demoSections });
    const name = `presser${++seq}`;
    await buyerApi(t.node.app, name);
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await drawn(page);
    await clickSeat(page, 'B-2-7');
    await page.getByTestId('hold-selected').click();
    await page.waitForURL(/\/signin\?next=/);
    await page.getByLabel('Username').fill(name);
    await page.getByLabel('Password').fill('password-123');
    await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.baseUrl}/shows/${showId}`);
    await page.getByTestId('hold-selected').getByText(/^Hold 1 selected seat/).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    for (const next of ['https://example.com/x', '//example.com/x', '/\\example.com/x', 'javascript:alert(1)']) {
      await page.goto(`${t.baseUrl}/signin?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Username').fill(name);
      await page.getByLabel('Password').fill('password-123');
      await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${t.baseUrl}/`);
      await page.getByRole('button', { name: 'Sign out' }).click();
    }
    await context.close();
  });

  it('offers sign-in (and comes back) on the organizer and door pages when signed out, in both languages', async () => {
    for (const [locale, path, heading, link, username, password, submit] of [
      ['zh-CN', '/admin', '主办方', '登录后继续', '用户名', '密码', '登录'],
      ['en-US', '/door', 'Door check-in', 'Sign in to continue', 'Username', 'Password', 'Sign in'],
    ] as const) {
      const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}${path}`);
      await page.getByRole('heading', { name: heading }).waitFor();
      await noSeriousA11yViolations(page, `${path} signed out`);
      await page.getByRole('link', { name: link }).click();
      await page.waitForURL(`${t.baseUrl}/signin?next=${encodeURIComponent(path)}`);
      await page.getByLabel(username).fill(adminCredentials.username);
      await page.getByLabel(password).fill(adminCredentials.password);
      await page.getByRole('main').getByRole('button', { name: submit }).click();
      await page.waitForURL(`${t.baseUrl}${path}`);
      await expect(page.getByTestId('sign-in-first').count()).resolves.toBe(0);
      await context.close();
    }
  });
});

