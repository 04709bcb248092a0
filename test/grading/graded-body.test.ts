// What grading keeps of a body (issue 35, item 10): a digest and a bounded excerpt, never the body.
// Bodies up to 8 KiB used to be kept whole per attempt, so 4 KB of feedback_data held the heap near
// 620 MB. The live route (an app with a memory store), then the report and its HTML evidence.
import t from 'tap';
import { formatHtml } from '../../src/grading/format-html.js';
import { BODY_EXCERPT_CHARS, gradedBody } from '../../src/grading/graded-body.js';
import type { Report } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, HEADERS, listen } from '../helpers/app.js';
import { post } from '../helpers/net.js';

const FEEDBACK = 'table=BAC07;shoe=33;'.repeat(200); // 4,000 characters
const USD = { currency: 'USD' };

t.test('4 KB of feedback_data: grading keeps under 1.5 KB per attempt, and judges resends exactly', async (t) => {
  const { app, sim } = await buildTestApp({
    rules: ['lost1', 'lost2'].map((user_id) => ({
      name: user_id,
      when: { event_type: 'bet' as const, user_id },
      then: { drop_connection: true },
      times: 1,
    })),
  });
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  // Over a real socket: a dropped connection is the lost reply.
  const send = (body: object) => post(url, body, HEADERS, 5000);
  const big = (user: string, game: string, feedback = FEEDBACK) => ({ ...bet(user, game, [['1', 'P', 10]], USD), feedback_data: feedback });
  for (let i = 0; i < 50; i++) t.equal((await send(big(`p${i}`, `G${i}`))).body?.code, 'R0');
  // Two lost replies: one resent unchanged (a new timestamp only), one resent with its feedback_data changed.
  const same = big('lost1', 'G-same');
  t.ok((await send(same)).error, 'the first reply is lost');
  t.equal((await send({ ...same, timestamp: same.timestamp + 5 })).body?.code, 'R0', 'the identical resend replays R0');
  const changed = big('lost2', 'G-changed');
  await send(changed);
  await send({ ...changed, feedback_data: `${FEEDBACK.slice(0, -1)}!` });

  let largest = 0;
  let cited = true;
  for (const tx of sim.grading.grader.txs.values()) {
    cited &&= tx.first.headers !== undefined && tx.first.reply !== undefined;
    largest = Math.max(largest, JSON.stringify(tx.first.body).length);
  }
  t.ok(cited, 'every attempt keeps the headers and reply its evidence cites (its body is the one grading keeps)');
  t.ok(
    largest < 1500,
    `grading keeps at most ${largest} characters of a ${JSON.stringify(big('p', 'G')).length}-character body per attempt`,
  );

  const report = (await app.inject({ method: 'GET', url: '/admin/report' })).json() as Report;
  const check = report.checks.find((c) => c.id === 'RETRY_UNCHANGED')!;
  t.equal(check.status, 'fail');
  t.equal(check.violations.length, 1, 'only the resend that differs is a violation');
  t.match(check.violations[0]!.message, /feedback_data changed/, 'naming the field that changed');
  t.match(check.violations[0]!.message, new RegExp(changed.transaction_id));
  const evidence = check.violations[0]!.evidence!;
  t.equal(evidence.length, 2);
  for (const e of evidence) {
    t.match(e.request, `"transaction_id":"${changed.transaction_id}"`, 'the evidence shows the request');
    t.match(e.request, /"feedback_data":"table=BAC07;shoe=33;/);
    t.ok(e.request!.length <= 2100, `bounded (${e.request!.length} characters)`);
  }
  const html = formatHtml(report, { url: 'http://127.0.0.1', failOn: 'error' });
  t.match(html, `&quot;transaction_id&quot;:&quot;${changed.transaction_id}&quot;`, 'the HTML evidence shows the request');
});

t.test('gradedBody: one digest for the same body whatever its key order and timestamp; a bounded excerpt', async (t) => {
  const a = { transaction_id: 't', timestamp: 1, feedback_data: 'x'.repeat(10_000), data: { b: 1, a: [1, 2] } };
  const b = { data: { a: [1, 2], b: 1 }, feedback_data: 'x'.repeat(10_000), timestamp: 2, transaction_id: 't' };
  t.equal(gradedBody(a, 0).sha256, gradedBody(b, 0).sha256);
  t.not(gradedBody(a, 0).sha256, gradedBody({ ...a, data: { b: 1, a: [2, 1] } }, 0).sha256, 'an array in another order differs');
  t.not(gradedBody(a, 0).sha256, gradedBody({ ...a, extra: null }, 0).sha256, 'a field more differs');
  const g = gradedBody(a, 10_080);
  t.ok(g.excerpt.length <= BODY_EXCERPT_CHARS + 30, 'the excerpt is bounded');
  t.match(g.excerpt, /… \(10080 characters\)$/);
  const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
  t.ok(JSON.stringify(gradedBody(many, 0)).length < 1500, 'a body of 10,000 fields keeps its digest, not one per field');
  t.ok(JSON.stringify(gradedBody({ ['k'.repeat(100_000)]: 1 }, 0)).length < 1500, 'a field name of 100,000 characters is cut');
});

t.test('keptBody: a short body is kept as parsed (graded only when compared), a long one only as its GradedBody', async (t) => {
  const { keptBody, KEPT_WHOLE_CHARS, isGraded, asGraded } = await import('../../src/grading/graded-body.js');
  const short = { transaction_id: 't', event_type: 'login', timestamp: 1, feedback_data: 'x', user_id: 'p' };
  t.equal(keptBody(short, JSON.stringify(short).length), short, 'the same object: no work on arrival');
  const long = { ...short, feedback_data: 'f'.repeat(4000) };
  const text = JSON.stringify(long);
  t.ok(text.length > KEPT_WHOLE_CHARS);
  const kept = keptBody(long, text.length, text);
  t.ok(isGraded(kept), 'graded at once');
  t.notMatch(JSON.stringify(kept), 'f'.repeat(1000), 'never the body');
  // A short first attempt and a long resend compare by the same digest.
  t.equal(asGraded({ ...long, timestamp: 2 }).sha256, asGraded(kept).sha256, 'the same body, timestamp aside');
  t.not(asGraded(short).sha256, asGraded(kept).sha256);
});
