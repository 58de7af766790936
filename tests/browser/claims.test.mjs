// Page tests of issue #38 on the release build in dist/: every view says, in words, what the
// paper claimed and what Gridscope found — "Paper: …. Gridscope: … — verdict, because …" —
// under each claim of the report card and under each family view's own run; the report card
// uses the window's width without covering a number; the header and tabs make a clean bar on
// a laptop and a phone, each view described in a line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { traces, pageSuite, assertCleanPages, assertOnView, waitResults } from './harness.mjs';

const { open, pages } = pageSuite();
const TRACE = path.join(traces, 'SDSC-SP2-1998-4.2-cln.swf.gz');
const DESKTOP = { viewport: { width: 1400, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
const VERDICT = /— (reproduced|same direction, (larger|smaller) by ×\d+\.\d\d|same direction, short of [^,]+|not reproduced)(, because [^.]+)?\./;

/** The claim lines under `scope`: [data-id, text]. */
function claimLines(page, scope) {
  return page.$$eval(`${scope} [data-testid=claim-line]`, (ps) => ps.map((p) => [p.dataset.id, p.textContent]));
}

/** Each line reads "Paper: …. <who>: <value> — <verdict>[, because …]." and links its doc. */
async function assertLines(page, scope, who) {
  const lines = await claimLines(page, scope);
  assert.ok(lines.length > 0, `${scope}: no claim lines`);
  for (const [id, text] of lines) {
    assert.match(text, new RegExp(`^Paper: .+ ${who}: `), `${id}: ${text}`);
    assert.match(text, VERDICT, `${id}: ${text}`);
    assert.doesNotMatch(text, /\btrend\b/, `${id}: ${text}`);
  }
  const links = await page.$$eval(`${scope} [data-testid=claim-line] a`, (as) => as.map((a) => a.getAttribute('href')));
  assert.equal(links.length, lines.length);
  assert.ok(links.every((h) => /^docs\/[a-z]+\.html#[a-z0-9_-]+$/.test(h)), links.join(' '));
  return lines;
}

test('the report card says each claim in words under its row, in the window\'s width, at 1400 px and on a phone', async () => {
  const page = await open('#/paper', DESKTOP);
  await assertOnView(page, 'paper');
  const t0 = Date.now();
  await page.click('[data-testid=paper-run]');
  await page.waitForSelector('[data-testid=paper-table]', { timeout: 180_000 });
  console.log(`# Paper view, all papers without traces: ${Date.now() - t0} ms from click to table`);
  const rows = await page.$$eval('[data-testid=paper-table] tr[data-id]', (trs) => trs.map((t) => t.dataset.id));
  const lines = await claimLines(page, '[data-testid=paper-table]');
  assert.deepEqual(lines.map((l) => l[0]), rows, 'one line under every row');
  // Rows not run say why in the line, as text (no hover needed on a phone).
  const scjg = lines.find((l) => l[0] === 'scjg.utilization-falls')[1];
  assert.match(scjg, /Gridscope: not run, because needs the trace SDSC-SP2-1998-4\.2-cln\.swf\.gz/);
  const runLines = lines.filter(([, text]) => !/Gridscope: not (run|modelled)/.test(text)).length;
  assert.ok(runLines > 30, `${runLines} claims with a value`);
  await assertLines(page, '[data-testid=paper-table] tr.claim-row:not(:has(.not-run)):not(:has(.not-modelled))', 'Gridscope');
  const kkor = lines.find((l) => l[0] === 'kkor.dec-slightly-worse')[1];
  assert.match(kkor, /Gridscope: 3\.\d\d× — same direction, larger by ×2\.\d\d, because outside ±10 % of the paper's, but above 1 \(the paper's side\)\. Under the documented reading: 1\.\d\d× — reproduced/);

  // The table fits the window: no sideways scroll, wider than the old 960 px column.
  const fit = await page.evaluate(() => {
    const t = document.querySelector('[data-testid=paper-table]');
    const wrap = t.closest('.table-wrap');
    return { table: Math.round(t.getBoundingClientRect().width), window: innerWidth, scroll: wrap.scrollWidth - wrap.clientWidth, sticky: getComputedStyle(t.querySelector('th[scope=row]')).position };
  });
  console.log(`# Paper table at 1400 px: ${fit.table} px wide in a ${fit.window} px window, ${fit.scroll} px to scroll sideways`);
  assert.ok(fit.scroll <= 1 && fit.table > 1200 && fit.table <= fit.window, JSON.stringify(fit));
  assert.equal(fit.sticky, 'static', 'no sticky column to cover a number');

  // On a phone the first column does not stick over the numbers either, and the lines wrap.
  const phone = await open('#/paper', PHONE);
  await phone.click('[data-testid=paper-run]');
  await phone.waitForSelector('[data-testid=paper-table]', { timeout: 180_000 });
  const small = await phone.evaluate(() => {
    const t = document.querySelector('[data-testid=paper-table]');
    const line = t.querySelector('[data-testid=claim-line]').getBoundingClientRect();
    return { sticky: getComputedStyle(t.querySelector('th[scope=row]')).position, line: line.right, window: innerWidth, page: document.documentElement.scrollWidth };
  });
  console.log(`# Paper table on a 390 px phone: page ${small.page} px wide`);
  assert.equal(small.sticky, 'static');
  assert.ok(small.page <= small.window + 1, `the page scrolls sideways: ${JSON.stringify(small)}`);
  assertCleanPages(pages, 2);
});

test('each family view says what its own run found against each claim of its paper', async () => {
  // KKOR's load sweep: decentralized 3× centralized where the paper says "slightly worse".
  const kkor = await open('#/kkor');
  await assertOnView(kkor, 'kkor');
  await kkor.click('[data-testid=kkor-run]');
  await kkor.waitForSelector('[data-testid=kkor-claims]', { timeout: 120_000 });
  const k = await assertLines(kkor, '[data-testid=kkor-claims]', 'Gridscope, this run');
  const slightly = k.find((l) => l[0] === 'kkor.dec-slightly-worse')[1];
  assert.match(slightly, /slightly worse .* Gridscope, this run: \d\.\d\d× — same direction, larger by ×\d\.\d\d/);

  const ses = await open('#/ses');
  await ses.click('[data-testid=ses-run]');
  await ses.waitForSelector('[data-testid=ses-claims]', { timeout: 120_000 });
  await assertLines(ses, '[data-testid=ses-claims]', 'Gridscope, this run');

  // SF at few seeds: the sweep's own numbers, judged by the card's tolerance.
  const sf = await open('#/sf');
  for (const [sel, v] of [['#sf-seeds', '2'], ['#sf-batches', '2000']]) { await sf.fill(sel, v); await sf.press(sel, 'Tab'); }
  await sf.click('[data-testid=sf-run]');
  await sf.waitForSelector('[data-testid=sf-claims]', { timeout: 120_000 });
  await assertLines(sf, '[data-testid=sf-claims]', 'Gridscope, this run');

  // SOB in the scheduling view: the synthetic heavy preset's wait and response gains.
  const sob = await open('');
  await sob.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-heavy');
  await sob.click('[data-testid=run]');
  await sob.waitForSelector('[data-testid=sob-claims]', { timeout: 120_000 });
  const s = await assertLines(sob, '[data-testid=sob-claims]', 'Gridscope, this run');
  assert.ok(s.some((l) => l[0] === 'sob.heavy-wait'), s.map((l) => l[0]).join(' '));
  assertCleanPages(pages, 4);
});

test('SCJG\'s view says the expansion factor against the paper\'s "rises" on the trace', async () => {
  assert.ok(fs.existsSync(TRACE), `${TRACE} is missing: the tests read ../shared/traces`);
  const page = await open('#/scjg');
  await page.setInputFiles('[data-testid=scjg-trace]', TRACE);
  await page.fill('#scjg-seeds', '1');
  await page.press('#scjg-seeds', 'Tab');
  await page.click('[data-testid=scjg-run]');
  await page.waitForSelector('[data-testid=scjg-claims]', { timeout: 180_000 });
  const lines = await assertLines(page, '[data-testid=scjg-claims]', 'Gridscope, this run');
  assert.ok(lines.length >= 3, lines.map((l) => l[0]).join(' '));
});

test('the tab bar is one clean row on a laptop and a phone, and says what the view is', async () => {
  for (const [name, options, most] of [['desktop 1400×900', DESKTOP, 64], ['phone 390×844 at 3×', PHONE, 120]]) {
    const page = await open('#/kkor', options);
    await assertOnView(page, 'kkor');
    const bar = await page.evaluate(() => {
      const nav = document.querySelector('nav.views');
      const list = nav.querySelector('ul');
      const docs = [...nav.querySelectorAll('.doc-links a')].map((a) => [getComputedStyle(a).display, Math.round(a.getBoundingClientRect().top)]);
      return {
        height: Math.round(nav.getBoundingClientRect().height),
        tabs: Math.round(list.getBoundingClientRect().height),
        docs,
        scrolls: list.scrollWidth > list.clientWidth,
        overflowX: getComputedStyle(list).overflowX,
        page: document.documentElement.scrollWidth,
        window: innerWidth,
        about: document.querySelector('[data-testid=view-about]').textContent,
      };
    });
    console.log(`# tab bar, ${name}: ${bar.height} px tall (tabs ${bar.tabs} px), tabs scroll sideways: ${bar.scrolls}`);
    assert.ok(bar.height <= most, `${name}: tab bar ${bar.height} px tall (at most ${most})`);
    assert.ok(bar.docs.every(([d]) => d === 'inline'), `${name}: docs links are inline: ${JSON.stringify(bar.docs)}`);
    assert.equal(new Set(bar.docs.map(([, top]) => top)).size, 1, `${name}: docs links on one line: ${JSON.stringify(bar.docs)}`);
    assert.ok(bar.page <= bar.window + 1, `${name}: the page scrolls sideways (${bar.page} px)`);
    assert.match(bar.about, /^KKOR: centralized against decentralized/);
    if (bar.scrolls) assert.equal(bar.overflowX, 'auto', `${name}: the tabs scroll`);
  }
  assertCleanPages(pages, 2);
});
