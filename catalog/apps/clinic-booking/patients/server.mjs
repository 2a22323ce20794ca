// patients: the clinic's patient records (contact details, date of birth, insurance).
// State: one JSON file at $PATIENTS_DATA. Registering twice makes two records: the
// service does not deduplicate, finding an existing record first is the agent's job.
import { pathToFileURL } from 'node:url';
import { date, env, fail, nextId, openStore, serve, str } from '../lib/kit.mjs';

const SALT = 'clinic-patients';

export function routes(ctx) {
  const s = () => ctx.store.state;
  const patient = (id) => s().patients.find((p) => p.id === id) ?? fail(404, 'not_found', `no patient ${id}`);
  return [
    {
      method: 'GET',
      path: '/patients',
      handler: ({ query }) => {
        const email = query.email?.trim().toLowerCase();
        const name = query.name?.trim().toLowerCase();
        const dob = date(query, 'dob', { required: false });
        return {
          patients: s().patients.filter((p) => (!email || p.email.toLowerCase() === email) && (!name || p.name.toLowerCase().includes(name)) && (!dob || p.dob === dob)),
        };
      },
    },
    {
      method: 'POST',
      path: '/patients',
      handler: ({ body }) => {
        const fields = { name: str(body, 'name'), email: str(body, 'email'), phone: str(body, 'phone', { required: false }) ?? null, dob: date(body, 'dob') };
        const p = { id: nextId(s(), 'pat', SALT), ...fields, insurance: null };
        s().patients.push(p);
        return { status: 201, body: p };
      },
    },
    { method: 'GET', path: '/patients/{patient_id}', handler: ({ params }) => patient(params.patient_id) },
    {
      method: 'PATCH',
      path: '/patients/{patient_id}',
      handler: ({ params, body }) => {
        const p = patient(params.patient_id);
        const email = str(body, 'email', { required: false });
        const phone = str(body, 'phone', { required: false });
        if (email === undefined && phone === undefined) fail(400, 'missing_field', 'give email and/or phone');
        if (email !== undefined) p.email = email;
        if (phone !== undefined) p.phone = phone;
        return p;
      },
    },
    {
      method: 'PUT',
      path: '/patients/{patient_id}/insurance',
      handler: ({ params, body }) => {
        const p = patient(params.patient_id);
        p.insurance = { provider: str(body, 'provider'), member_id: str(body, 'member_id') };
        return p;
      },
    },
  ];
}

export function start() {
  const store = openStore(env('PATIENTS_DATA'), { patients: [], counters: {} });
  return serve({ name: 'patients', routes: routes({ store }), store, port: Number(env('PORT')) });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) start();
