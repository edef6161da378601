// The baseline: the smallest Fastify app that parses and answers JSON, on the same machine and
// Fastify version as TicketRush, so the bench reports ratios rather than noisy absolute figures.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/hello', async (request) => ({ hello: 'world', received: request.body }));
app.get('/hello', async () => ({ hello: 'world' }));

const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ msg: 'ready', url })}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
