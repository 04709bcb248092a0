// What the signed statement names by digest: the scenario's canonical JSON (RFC 8785), and where
// the report travels beside its envelope.
import t from 'tap';
import { reportBeside } from '../../src/evidence/beside.js';
import { canonicalJson } from '../../src/evidence/canonical-json.js';

t.test('canonical JSON: keys sorted by code unit, no whitespace, numbers and strings as JSON.stringify writes them', async (t) => {
  const cases: [string, unknown, string][] = [
    ['nested objects sorted', { b: 1, a: { d: [3, 1], c: null } }, '{"a":{"c":null,"d":[3,1]},"b":1}'],
    ['arrays keep their order', [3, 'x', true, null], '[3,"x",true,null]'],
    ['numbers as ECMAScript writes them', { n: [1e21, 0.5, -0, 100, 1.5e-7] }, '{"n":[1e+21,0.5,0,100,1.5e-7]}'],
    ['strings escaped as JSON.stringify does', { s: 'é\n"\u0001' }, '{"s":"é\\n\\"\\u0001"}'],
    [
      'code-unit order (RFC 8785 3.2.3): upper case first, then lower, then beyond ASCII',
      { b: 1, B: 2, é: 3, a: 4 },
      '{"B":2,"a":4,"b":1,"é":3}',
    ],
    ['undefined members dropped', { a: undefined, b: 1 }, '{"b":1}'],
  ];
  for (const [name, value, text] of cases) t.equal(canonicalJson(value), text, name);
  t.equal(canonicalJson({ x: 1, y: 2 }), canonicalJson({ y: 2, x: 1 }), 'the same document, the same bytes, whatever the key order');
  t.throws(() => canonicalJson({ n: Number.NaN }), /canonical JSON has no NaN/);
});

t.test('the report beside its envelope', async (t) => {
  const cases: [string, string][] = [
    ['evidence.json', 'evidence.report.json'],
    ['out/ticket-42.JSON', 'out/ticket-42.report.json'],
    ['evidence.dsse', 'evidence.dsse.report.json'],
    ['evidence', 'evidence.report.json'],
  ];
  for (const [envelope, report] of cases) t.equal(reportBeside(envelope), report, envelope);
});
