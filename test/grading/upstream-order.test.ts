// A player's arrivals folded in arrival order while a callback of the player is at the upstream
// (src/grading/upstream-order.ts), as a table: the stream's events in, the folded order out.
import t from 'tap';
import { UpstreamOrder } from '../../src/grading/upstream-order.js';

type Step =
  | ['sent', string, number, number] // user, provisional id, sent at
  | ['answered', string, number]
  | ['arrival', string, string, number] // name (= attempt key), user, at
  | ['attempt', string]; // an event of the attempt named

function run(steps: Step[], abandonMs?: number): string[] {
  const folded: string[] = [];
  const order = new UpstreamOrder<string>(
    (e) => {
      const [kind, name, user, at] = e.split(' ');
      if (kind === 'a' && order.arrival(e, name, user!, Number(at))) return;
      if (kind === 'c' && order.ofAttempt(e, name!)) return;
      folded.push(e);
    },
    undefined,
    abandonMs,
  );
  for (const step of steps) {
    if (step[0] === 'sent') order.sent(step[1], step[2], step[3]);
    else if (step[0] === 'answered') order.answered(step[1], step[2]);
    else if (step[0] === 'arrival') {
      const e = `a ${step[1]} ${step[2]} ${step[3]}`;
      if (!order.arrival(e, step[1], step[2], step[3])) folded.push(e);
    } else if (!order.ofAttempt(`c ${step[1]}`, step[1])) folded.push(`c ${step[1]}`);
  }
  return folded.map((e) => e.split(' ').slice(0, 2).join(' '));
}

t.test('the table', async (t) => {
  const table: [string, Step[], string[], number?][] = [
    [
      'a resend answered before its slow first attempt waits for it',
      [
        ['sent', 'p', -1, 100], // first attempt, arrived at 99
        ['sent', 'p', -2, 1300], // the resend
        ['arrival', 'resend', 'p', 1299],
        ['answered', 'p', -2],
        ['attempt', 'resend'],
        ['arrival', 'first', 'p', 99],
        ['attempt', 'first'],
        ['answered', 'p', -1],
      ],
      ['a first', 'c first', 'a resend', 'c resend'],
    ],
    [
      "another player's arrival never waits",
      [
        ['sent', 'p', -1, 100],
        ['sent', 'q', -2, 200],
        ['arrival', 'q1', 'q', 199],
        ['answered', 'q', -2],
        ['arrival', 'p1', 'p', 99],
        ['answered', 'p', -1],
      ],
      ['a q1', 'a p1'],
    ],
    [
      'callbacks one after another: nothing waits',
      [
        ['sent', 'p', -1, 100],
        ['arrival', 'one', 'p', 99],
        ['answered', 'p', -1],
        ['sent', 'p', -2, 300],
        ['arrival', 'two', 'p', 299],
        ['answered', 'p', -2],
      ],
      ['a one', 'a two'],
    ],
    [
      'two earlier callbacks at the upstream: the later arrival waits for both',
      [
        ['sent', 'p', -1, 100],
        ['sent', 'p', -2, 200],
        ['sent', 'p', -3, 300],
        ['arrival', 'third', 'p', 299],
        ['answered', 'p', -3],
        ['arrival', 'first', 'p', 99],
        ['answered', 'p', -1],
        ['arrival', 'second', 'p', 199],
        ['answered', 'p', -2],
      ],
      ['a first', 'a second', 'a third'],
    ],
    [
      'a callback never answered (its process gone) holds nothing past the bound',
      [
        ['sent', 'p', -1, 100],
        ['arrival', 'late', 'p', 100 + 5001],
      ],
      ['a late'],
      5000,
    ],
    [
      'what waited for a callback never answered is folded, in order, once a later arrival finds it abandoned',
      [
        ['sent', 'p', -1, 100],
        ['sent', 'p', -2, 300],
        ['arrival', 'waiting', 'p', 299],
        ['answered', 'p', -2],
        ['arrival', 'late', 'p', 100 + 5001],
      ],
      ['a waiting', 'a late'],
      5000,
    ],
    [
      'an answer to another callback releases nothing',
      [
        ['sent', 'p', -1, 100],
        ['answered', 'p', -9],
        ['arrival', 'x', 'p', 150],
        ['answered', 'p', -1],
      ],
      ['a x'],
    ],
  ];
  for (const [name, steps, expected, abandon] of table) t.same(run(steps, abandon), expected, name);
});

t.test("every callback at the upstream holds the session's clock at its arrival, until answered or abandoned", async (t) => {
  let next = 0;
  const held = new Map<number, number>(); // ticket → the arrival time it holds the clock at
  const clock = { expect: (at: number) => (held.set(++next, at), next), settle: (ticket: number) => void held.delete(ticket) };
  const order = new UpstreamOrder<string>(
    () => undefined,
    () => clock,
    5000,
  );
  const holding = () => [...held.values()];
  order.sent('p', -1, 100, 99);
  order.sent(undefined, -2, 200, 198); // a body with no player: it holds the clock all the same
  order.sent('q', -3, 300); // an event of an earlier version: held at when it was sent
  t.same(holding(), [99, 198, 300]);
  order.answered('p', -1);
  t.same(holding(), [198, 300], 'answered: let go');
  order.answered('p', -1);
  order.answered('q', -9);
  t.same(holding(), [198, 300], 'an answer told twice, or to a callback never sent, lets nothing go');
  order.abandon(200 + 5000);
  t.same(holding(), [198, 300], 'not yet past the bound');
  order.abandon(200 + 5001);
  t.same(holding(), [300], 'at the upstream past the bound (its process gone): let go');
  order.clear();
  order.answered('q', -3);
  t.same(holding(), [300], "a new session's clock: the old one's tickets are not settled on it");
});
