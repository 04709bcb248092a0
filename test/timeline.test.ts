// The pictures of the report (src/report/): a violation's evidence → lanes and marks in the SVG, the
// retry-gap histogram, and the palette's contrast. Pure: strings in, strings out.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../src/kernel/paths.js';
import { SHOTS } from '../scripts/timeline-session.js';
import { gapHistogramSvg } from '../src/report/histogram.js';
import { COLOR, contrast, GROUNDS, INKS } from '../src/report/palette.js';
import { offset, timelineSvg, WIDTH } from '../src/report/timeline.js';
import type { ReportEvidence, ReportViolation } from '../src/protocol/types.generated.js';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const thresholds = { client_timeout_s: 3, min_retry_gap_ms: 500, retry_window_s: 10 };

const ev = (id: number, tx: string, at: number, more: Partial<ReportEvidence> & { end?: number } = {}): ReportEvidence => {
  const { end, ...rest } = more;
  return {
    journal_id: id,
    received_at: iso(at),
    ...(end === undefined ? {} : { replied_at: iso(end) }),
    transaction_id: tx,
    event_type: 'bet',
    request: `{"body":{"transaction_id":"${tx}"}}`,
    reply: '{"status":200}',
    ...rest,
  };
};

/** What a picture holds, read back: its lanes, its marks (class and journal id), its bands. */
function read(svg: string) {
  const marks = [...svg.matchAll(/class="mark ([a-z -]+)" data-journal-id="(\d+)"/g)].map((m) => `${m[1]!.replace(/ +/g, '.')}#${m[2]}`);
  const count = (cls: string) => (svg.match(new RegExp(`class="${cls}"`, 'g')) ?? []).length;
  return {
    lanes: [...svg.matchAll(/class="lane" data-lane="([^"]+)"/g)].map((m) => m[1]),
    marks,
    timeouts: count('timeout'),
    minGaps: count('min-gap'),
    waits: count('wait'),
    windows: count('window'),
    decided: count('decided'),
  };
}

const cases: { name: string; v: ReportViolation; relayed?: boolean; check?: string; want: Partial<ReturnType<typeof read>> }[] = [
  {
    name: 'a dropped reply never resent: one lane, the arrival, a cross, the retry window that ran out, the decision at its end',
    check: 'LOST_REPLY_RETRIED',
    v: {
      message: 'the reply to bet b1 of p1 (#1) was lost and the transaction was never resent within 10 s',
      journal_ids: [1],
      decided_at: iso(10_005),
      evidence: [ev(1, 'b1', 0, { end: 5, fate: 'dropped', outcome: 'lost', known_at: iso(5) })],
    },
    want: { lanes: ['provider:b1'], marks: ['dropped#1', 'arrival#1'], timeouts: 1, minGaps: 0, windows: 1, decided: 1 },
  },
  {
    name: 'a premature resend: one lane, two arrivals, the first still unanswered, the minimum gap and two time-outs',
    v: {
      message: 'bet b1 of p1 (#2) was sent 40 ms after #1, which was still unanswered',
      journal_ids: [1, 2],
      decided_at: iso(40),
      evidence: [ev(1, 'b1', 0, { fate: 'unanswered', outcome: 'waiting' }), ev(2, 'b1', 40, { fate: 'unanswered', outcome: 'waiting' })],
    },
    want: {
      lanes: ['provider:b1'],
      marks: ['unanswered#1', 'arrival#1', 'unanswered#2', 'arrival#2'],
      timeouts: 2,
      minGaps: 1,
      windows: 0,
      decided: 1,
    },
  },
  {
    name: 'a retry under a new id: two lanes, the dropped one and the new one, no window (the check decided before it ran out)',
    v: {
      message: 'the reply to bet b1 of p1 (#1) was lost; 40 ms later bet b2 of p1 (#2) arrived for the same round',
      journal_ids: [1, 2],
      transaction_id: 'b2',
      decided_at: iso(45),
      evidence: [
        ev(1, 'b1', 0, { end: 5, fate: 'dropped', outcome: 'lost', known_at: iso(5) }),
        ev(2, 'b2', 45, { end: 50, fate: 'written', outcome: 'R0' }),
      ],
    },
    want: {
      lanes: ['provider:b1', 'provider:b2'],
      marks: ['dropped#1', 'arrival#1', 'reply.written#2', 'arrival#2'],
      windows: 0,
      decided: 1,
    },
  },
  {
    name: 'a reply held by a rule, one forced, and one the caller left: each drawn its own way',
    v: {
      message: 'three fates',
      journal_ids: [1, 2, 3],
      evidence: [
        ev(1, 'a', 0, { end: 4000, fate: 'written', delay_ms: 3990, outcome: 'lost' }),
        ev(2, 'b', 10, { end: 15, fate: 'written', forced: 'R4', outcome: 'R4' }),
        ev(3, 'c', 20, { end: 5000, fate: 'caller_gone', closed_at: iso(3000), outcome: 'lost' }),
      ],
    },
    want: {
      lanes: ['provider:a', 'provider:b', 'provider:c'],
      marks: ['reply.delayed#1', 'arrival#1', 'reply.forced#2', 'arrival#2', 'caller-gone#3', 'reply.written#3', 'arrival#3'],
      decided: 0,
    },
  },
  {
    name: 'a back-off that shrinks: three attempts, each gap and each wait after a known outcome',
    v: {
      message: 'b1 waited 100 ms before #3, less than the 900 ms it waited before #2: back-off must not shrink',
      journal_ids: [2, 3],
      decided_at: iso(1300),
      evidence: [
        ev(1, 'b1', 0, { end: 100, fate: 'written', outcome: 'R1', known_at: iso(100) }),
        ev(2, 'b1', 1000, { end: 1100, fate: 'written', outcome: 'R1', known_at: iso(1100) }),
        ev(3, 'b1', 1200, { end: 1300, fate: 'written', outcome: 'R0', known_at: iso(1300) }),
      ],
    },
    want: { lanes: ['provider:b1'], minGaps: 2, waits: 2, decided: 1 },
  },
  {
    name: 'proxy mode, a wallet-side violation: the provider lane and the upstream leg as a second lane',
    relayed: true,
    v: {
      message: 'bet b1 of p1 (#7): no reply (no reply within 3000 ms)',
      journal_ids: [7],
      decided_at: iso(3000),
      evidence: [ev(7, 'b1', 0, { end: 3000, leg: 'upstream', fate: 'no_reply', reply: '{"none":"no reply within 3000 ms"}' })],
    },
    want: { lanes: ['provider:b1', 'upstream:b1'], marks: ['dropped#7', 'arrival#7', 'no-reply#7', 'arrival#7'], decided: 1 },
  },
  {
    name: 'probe: the wallet leg alone',
    v: {
      message: 'the wallet answered HTTP 500',
      journal_ids: [3],
      evidence: [ev(3, 'b1', 0, { end: 12, leg: 'upstream', fate: 'written' })],
    },
    want: { lanes: ['upstream:b1'], marks: ['reply.written#3', 'arrival#3'] },
  },
];

t.test('a violation → its lanes and marks', async (t) => {
  for (const c of cases) {
    const svg = timelineSvg(c.v, { thresholds, relayed: c.relayed, check: c.check, failedCode: 'R1' });
    t.match(read(svg), c.want, c.name);
    t.notMatch(svg, /style=/, `${c.name}: no style attribute (the dashboard's CSP)`);
    t.match(svg, new RegExp(`viewBox="0 0 ${WIDTH} \\d+"`), `${c.name}: ${WIDTH} units wide`);
    const xs = [...svg.matchAll(/ (?:x|cx|x1|x2)="(-?[\d.]+)"/g)].map((m) => Number(m[1]));
    t.ok(
      xs.every((x) => x >= 0 && x <= WIDTH),
      `${c.name}: every mark within the width`,
    );
  }
});

t.test("each check's own window, and gaps only between neighbouring attempts", async (t) => {
  const th = { ...thresholds, round_max_age_s: 30 };
  const windows = (svg: string) => [...svg.matchAll(/class="window" data-window="([a-z-]+)"/g)].map((m) => m[1]);
  const gaps = (svg: string) => [...svg.matchAll(/class="gap"[^>]*\/><text[^>]*>([^<]+)</g)].map((m) => m[1]);
  const rows: { name: string; check: string; v: ReportViolation; windows: string[]; gaps?: string[]; skipped?: string[] }[] = [
    {
      name: 'an R1 settlement never resent: the retry window it had, from when the R1 was read',
      check: 'FAILED_SETTLEMENT_RETRIED',
      v: {
        message: 'bet_result s1 of p1 (#1) was answered R1, and it was not resent within 10 s, so its round was left unsettled',
        journal_ids: [1],
        decided_at: iso(10_005),
        evidence: [ev(1, 's1', 0, { end: 5, fate: 'written', outcome: 'R1', known_at: iso(5), attempt: 1 })],
      },
      windows: ['retry'],
    },
    {
      name: 'an R1 settlement resent late: the window that ran out, none for the late resend',
      check: 'FAILED_SETTLEMENT_RETRIED',
      v: {
        message:
          'bet_result s1 of p1 (#1) was answered R1, and it was not resent within 10 s, so its round was left unsettled; it was resent late: #2 arrived 20 s after the R1 was known (answered R0)',
        journal_ids: [1, 2],
        decided_at: iso(10_005),
        evidence: [
          ev(1, 's1', 0, { end: 5, fate: 'written', outcome: 'R1', known_at: iso(5), attempt: 1 }),
          ev(2, 's1', 20_005, { end: 20_010, fate: 'written', outcome: 'R0', known_at: iso(20_010), attempt: 2 }),
        ],
      },
      windows: ['retry'],
      gaps: ['gap 20 s'],
    },
    {
      name: 'resends that stop: the window of the last one only (the first was resent within its window)',
      check: 'FAILED_SETTLEMENT_RETRIED',
      v: {
        message:
          'the resends of s1 stopped at #2 (its reply lost) before an R0, and it was not resent within 10 s, so its round was left unsettled',
        journal_ids: [1, 2],
        decided_at: iso(11_010),
        evidence: [
          ev(1, 's1', 0, { end: 5, fate: 'written', outcome: 'R1', known_at: iso(5), attempt: 1 }),
          ev(2, 's1', 1000, { end: 1010, fate: 'dropped', outcome: 'lost', known_at: iso(1010), attempt: 2 }),
        ],
      },
      windows: ['retry'],
    },
    {
      name: 'a round still open: its round_max_age_s from the opening bet, not the retry window of its lost reply',
      check: 'ROUNDS_SETTLED',
      v: {
        message: 'round G1 of p1, opened by bet b1 of p1 (#1), is still open after 31 s (at most 30 s)',
        journal_ids: [1],
        decided_at: iso(30_000),
        evidence: [ev(1, 'b1', 0, { end: 5, fate: 'dropped', outcome: 'lost', known_at: iso(5), attempt: 1 })],
      },
      windows: ['round-age'],
    },
    {
      name: 'too many attempts: the gap between the last two only; the attempts not cited are said, not drawn',
      check: 'RETRY_BACKOFF',
      v: {
        message: '#4 was attempt 4 of s1 (max_attempts 3)',
        journal_ids: [1, 3, 4],
        decided_at: iso(7000),
        evidence: [
          ev(1, 's1', 0, { end: 5, fate: 'written', outcome: 'R1', known_at: iso(5), attempt: 1 }),
          ev(3, 's1', 3000, { end: 3005, fate: 'written', outcome: 'R1', known_at: iso(3005), attempt: 3 }),
          ev(4, 's1', 7000, { end: 7005, fate: 'written', outcome: 'R1', known_at: iso(7005), attempt: 4 }),
        ],
      },
      windows: [],
      gaps: ['gap 4 s'],
      skipped: ['1 attempt between, not cited'],
    },
  ];
  for (const row of rows) {
    const svg = timelineSvg(row.v, { thresholds: th, check: row.check, failedCode: 'R1' });
    t.same(windows(svg), row.windows, `${row.name}: windows`);
    if (row.gaps) t.same(gaps(svg), row.gaps, `${row.name}: gaps`);
    if (row.skipped)
      t.same(
        [...svg.matchAll(/class="skipped"[^>]*>([^<]+)</g)].map((m) => m[1]),
        row.skipped,
        `${row.name}: skipped`,
      );
  }
});

t.test('a refusal the wallet chose (not forced) shows its code beside the reply, like a forced one', async (t) => {
  const v: ReportViolation = {
    message: 'bet b1 of p1 (#1) was refused with R3, a definite answer, yet #2 sent it again',
    journal_ids: [1, 2],
    decided_at: iso(1000),
    evidence: [
      ev(1, 'b1', 0, { end: 5, fate: 'written', outcome: 'R3', known_at: iso(5), attempt: 1 }),
      ev(2, 'b1', 1000, { fate: 'unanswered', outcome: 'waiting', attempt: 2 }),
    ],
  };
  const svg = timelineSvg(v, { thresholds, check: 'NO_RETRY_AFTER_REFUSAL' });
  t.match(svg, /<g class="mark reply written" data-journal-id="1"[^>]*>.*?<text[^>]*>R3<\/text><\/g>/s);
});

t.test("the time-out's words are drawn over the retry window's band, never under it", async (t) => {
  const rows: [string, ReportViolation, typeof thresholds][] = [
    [
      // The soak's picture: a 12 s reply the caller left at its 10 s time-out, the window from there.
      'the words beside the time-out tick',
      {
        message: 'the reply to bet b1 was lost (the caller closed the connection first) and the transaction was never resent within 60 s',
        journal_ids: [1],
        decided_at: iso(70_000),
        evidence: [
          ev(1, 'b1', 0, {
            end: 12_000,
            fate: 'caller_gone',
            closed_at: iso(10_000),
            delay_ms: 12_000,
            outcome: 'lost',
            known_at: iso(10_000),
          }),
        ],
      },
      { ...thresholds, client_timeout_s: 10, retry_window_s: 60 },
    ],
    [
      'the words at the edge (a time-out beyond the picture)',
      {
        message: 'the reply to bet b1 was lost and the transaction was never resent within 2 s',
        journal_ids: [1],
        decided_at: iso(2_010),
        evidence: [ev(1, 'b1', 0, { end: 10, fate: 'dropped', outcome: 'lost', known_at: iso(10) })],
      },
      { ...thresholds, client_timeout_s: 8, retry_window_s: 2 },
    ],
  ];
  for (const [name, v, th] of rows) {
    const svg = timelineSvg(v, { thresholds: th, check: 'LOST_REPLY_RETRIED' });
    // The lane's words (10 px), not the legend's (11 px, drawn last).
    const words = svg.search(/<text [^>]*font-size="10"[^>]*>time-out/);
    const window = svg.lastIndexOf('class="window"');
    t.ok(words > 0 && window > 0, `${name}: both drawn`);
    t.ok(words > window, `${name}: the words after the band (on top of it)`);
  }
});

t.test('every mark carries its exchange as a tooltip, escaped', async (t) => {
  const v: ReportViolation = {
    message: 'a <b>',
    journal_ids: [1],
    decided_at: iso(10),
    evidence: [
      ev(1, 'tx<1>', 0, { end: 5, fate: 'written', request: '{"body":"<script>"}', reply: '{"status":200,"body":{"code":"R1"}}' }),
    ],
  };
  const svg = timelineSvg(v, { thresholds });
  t.match(
    svg,
    /<circle class="mark arrival"[^>]*><title>#1 bet tx&lt;1&gt; arrived at 2026-11-29T10:00:00.000Z \(\+0 ms\)\nrequest \{&quot;body&quot;:&quot;&lt;script&gt;&quot;\}<\/title>/,
  );
  t.match(
    svg,
    /class="mark reply written"[^>]*><title>#1: reply written at \+5 ms \(5 ms after the arrival\)\nreply \{&quot;status&quot;:200/,
  );
  t.match(svg, /<g class="decided"><title>the check decided at \+10 ms: a &lt;b&gt;<\/title>/);
  t.notMatch(svg, /<script>|<b>/, 'nothing of the evidence is markup');
});

t.test('no evidence with times, no picture', async (t) => {
  t.equal(timelineSvg({ message: 'x', journal_ids: [] }), '');
  t.equal(timelineSvg({ message: 'x', journal_ids: [1], evidence: [{ journal_id: 1, received_at: 'not a time' }] }), '');
});

t.test('offsets read as a person reads them', async (t) => {
  t.same([0, 40, 999, 1000, 1250, 12_500, 60_000].map(offset), ['+0 ms', '+40 ms', '+999 ms', '+1 s', '+1.25 s', '+12.5 s', '+60 s']);
});

t.test('the retry-gap histogram: a bar per bucket, the thresholds where they fall', async (t) => {
  const buckets = [
    { from_ms: 0, to_ms: 50, count: 3 },
    { from_ms: 50, to_ms: 500, count: 0 },
    { from_ms: 500, to_ms: 5000, count: 1 },
    { from_ms: 5000, to_ms: null, count: 2 },
  ];
  const svg = gapHistogramSvg(buckets, { client_timeout_s: 3, min_retry_gap_ms: 500 });
  t.same(
    [...svg.matchAll(/class="bucket" data-from="(\d+)" data-count="(\d+)"><title>([^<]+)</g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
      m[3],
    ]),
    [
      [0, 3, '3 gaps of 0 ms–50 ms'],
      [50, 0, '0 gaps of 50 ms–500 ms'],
      [500, 1, '1 gap of 500 ms–5 s'],
      [5000, 2, '2 gaps of ≥ 5 s'],
    ],
  );
  t.match(svg, /class="threshold min-gap"><title>declared minimum gap 500 ms<\/title>/);
  t.match(svg, /class="threshold timeout"><title>declared time-out 3 s<\/title>/);
  t.match(svg, /aria-label="Histogram of 6 retry gaps: 3 of 0 ms–50 ms, 1 of 500 ms–5 s, 2 of ≥ 5 s"/);
  t.notMatch(svg, /style=/);
  t.equal(gapHistogramSvg(buckets.map((b) => ({ ...b, count: 0 }))), '', 'no gap, no picture');
});

t.test('the palette: every colour that draws a mark or a word reads at WCAG AA (4.5:1) on the paper and every band', async (t) => {
  for (const ink of INKS)
    for (const ground of GROUNDS) {
      const ratio = contrast(COLOR[ink], COLOR[ground]);
      t.ok(ratio >= 4.5, `${ink} ${COLOR[ink]} on ${ground} ${COLOR[ground]}: ${ratio.toFixed(2)}:1`);
    }
  t.equal(contrast('#000000', '#ffffff').toFixed(1), '21.0', 'the formula: black on white is 21:1');
  t.equal(contrast('#767676', '#ffffff').toFixed(2), '4.54', "the formula: WCAG's smallest AA grey on white");
});

t.test('docs/certification.md shows every picture scripts/screenshots.ts writes, and each is committed', async (t) => {
  const doc = readFileSync(join(ROOT, 'docs/certification.md'), 'utf8');
  for (const file of Object.keys(SHOTS)) {
    t.match(doc, `](images/${file})`, `${file} is shown`);
    t.ok(existsSync(join(ROOT, 'docs/images', file)), `${file} is there`);
  }
  const shown = [...doc.matchAll(/\]\(images\/(timeline-[^)]+)\)/g)].map((m) => m[1]);
  t.same(
    shown.filter((f) => !(f! in SHOTS)),
    [],
    'no timeline picture the script does not make',
  );
});
