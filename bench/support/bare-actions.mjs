// The baseline of bench/actions.ts: a bare Express handler answering POST actions with 202,
// the round trip an action takes with nothing behind it (no key check, routing, actor or store).
import express from 'express';

let eventId = 0;
const app = express();
app.use(express.json());
app.post('/v1/episodes/:id/actions', (req, res) => {
  res.status(202).json({ event_id: ++eventId, echo: req.body.idempotency_key });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
