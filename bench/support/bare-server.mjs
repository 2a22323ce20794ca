// The baseline of bench/gateway.ts: a bare Express handler answering what /v1/me answers.
import express from 'express';

const sample = {
  project_id: 'prj_x',
  project: 'default',
  organization: 'Acme',
  organization_id: 'org_x',
  key_id: 'key_x',
  scopes: ['admin'],
  plan: 'free',
  user: null,
  is_admin: true,
  is_operator: false,
  needs_onboarding: false,
};
const app = express();
app.get('/v1/me', (_req, res) => {
  res.json(sample);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
