import Fastify from 'fastify';

/** The ceiling: Fastify parsing the same JSON bodies and answering one fixed R0 reply. */
const app = Fastify({ logger: false });
const reply = JSON.stringify({ code: 'R0', event_type: 'bet', timestamp: 0, user_id: 'bench', latest_balance: 1000 });
/** BURN_US (bench --burn): CPU work per request, as a busy loop, to show what work alone costs here. */
const burnMs = Number(process.env.BURN_US ?? 0) / 1000;
app.post('/callback', async (_request, res) => {
  if (burnMs > 0) for (const end = performance.now() + burnMs; performance.now() < end;);
  return res.header('content-type', 'application/json').send(reply);
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`bare fastify listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
