// scheduling: doctors, their weekly hours, open slots and appointments.
// State: one JSON file at $SCHEDULING_DATA. "Now" is $WORLD_NOW (no wall clock).
// A patient may hold several appointments at the same time (the clinic's system allows
// double bookings), so a repeated booking call books twice. The 24-hour rule, the
// one-appointment-per-doctor rule and the insurance rule are the agent's, not enforced.
import { pathToFileURL } from 'node:url';
import { date, env, fail, nextId, openStore, serve, str } from '../lib/kit.mjs';

const SALT = 'clinic-scheduling';
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

const weekday = (d) => DAYS[new Date(`${d}T00:00:00Z`).getUTCDay()];

export function routes(ctx) {
  const s = () => ctx.store.state;
  const doctor = (id) => s().doctors.find((d) => d.id === id) ?? fail(404, 'not_found', `no doctor ${id}`);
  const appointment = (id) => s().appointments.find((a) => a.id === id) ?? fail(404, 'not_found', `no appointment ${id}`);
  const time = (obj, key) => {
    const t = str(obj, key);
    if (!TIME.test(t)) fail(400, 'bad_field', `${key} must be HH:MM`);
    return t;
  };
  const takenBy = (doctorId, d, t) => s().appointments.filter((a) => a.doctor_id === doctorId && a.date === d && a.time === t && a.status === 'booked');
  const openTimes = (doc, d) => (doc.days.includes(weekday(d)) && `${d}T23:59` > ctx.now ? doc.times.filter((t) => `${d}T${t}` > ctx.now && takenBy(doc.id, d, t).length === 0) : []);
  const mustBeBookable = (doc, d, t, patientId) => {
    if (`${d}T${t}` <= ctx.now) fail(409, 'in_the_past', `${d} ${t} is in the past`);
    if (!doc.days.includes(weekday(d)) || !doc.times.includes(t)) fail(409, 'not_working', `${doc.name} does not see patients on ${weekday(d)} ${d} at ${t}`);
    if (takenBy(doc.id, d, t).some((a) => a.patient_id !== patientId)) fail(409, 'slot_taken', `${d} ${t} with ${doc.name} is taken`);
  };
  const view = (a) => ({ ...a, doctor_name: doctor(a.doctor_id).name });

  return [
    {
      method: 'GET',
      path: '/doctors',
      handler: ({ query }) => ({ doctors: s().doctors.filter((d) => (!query.specialty || d.specialty === query.specialty) && (!query.name || d.name.toLowerCase().includes(query.name.toLowerCase()))) }),
    },
    {
      method: 'POST',
      path: '/doctors',
      handler: ({ body }) => {
        const days = body.days;
        const times = body.times;
        if (!Array.isArray(days) || !days.every((d) => DAYS.includes(d))) fail(400, 'bad_field', `days must be a list of ${DAYS.join(', ')}`);
        if (!Array.isArray(times) || !times.every((t) => typeof t === 'string' && TIME.test(t))) fail(400, 'bad_field', 'times must be a list of HH:MM');
        const fields = { name: str(body, 'name'), specialty: str(body, 'specialty') };
        const d = { id: nextId(s(), 'doc', SALT), ...fields, days, times: [...times].sort() };
        s().doctors.push(d);
        return { status: 201, body: d };
      },
    },
    {
      method: 'GET',
      path: '/slots',
      handler: ({ query }) => {
        const doc = doctor(str(query, 'doctor_id'));
        const d = date(query, 'date');
        return { doctor_id: doc.id, doctor_name: doc.name, date: d, weekday: weekday(d), open_times: openTimes(doc, d) };
      },
    },
    {
      method: 'GET',
      path: '/appointments',
      handler: ({ query }) => {
        const status = str(query, 'status', { required: false, allowed: ['booked', 'cancelled'] });
        const list = s()
          .appointments.filter(
            (a) =>
              (!query.patient_id || a.patient_id === query.patient_id) &&
              (!query.doctor_id || a.doctor_id === query.doctor_id) &&
              (!query.date || a.date === query.date) &&
              (!status || a.status === status),
          )
          .map(view);
        return { appointments: list };
      },
    },
    { method: 'GET', path: '/appointments/{appointment_id}', handler: ({ params }) => view(appointment(params.appointment_id)) },
    {
      method: 'POST',
      path: '/appointments',
      handler: ({ body }) => {
        const patientId = str(body, 'patient_id');
        const doc = doctor(str(body, 'doctor_id'));
        const d = date(body, 'date');
        const t = time(body, 'time');
        const reason = str(body, 'reason', { required: false }) ?? '';
        mustBeBookable(doc, d, t, patientId);
        const a = { id: nextId(s(), 'apt', SALT), patient_id: patientId, doctor_id: doc.id, date: d, time: t, reason, status: 'booked', cancel_reason: null };
        s().appointments.push(a);
        return { status: 201, body: view(a) };
      },
    },
    {
      method: 'POST',
      path: '/appointments/{appointment_id}/cancel',
      handler: ({ params, body }) => {
        const a = appointment(params.appointment_id);
        if (a.status === 'cancelled') fail(409, 'already_cancelled', 'the appointment is already cancelled');
        if (`${a.date}T${a.time}` <= ctx.now) fail(409, 'in_the_past', 'the appointment has already started');
        const reason = str(body, 'reason', { required: false }) ?? '';
        a.status = 'cancelled';
        a.cancel_reason = reason;
        return view(a);
      },
    },
    {
      method: 'POST',
      path: '/appointments/{appointment_id}/reschedule',
      handler: ({ params, body }) => {
        const a = appointment(params.appointment_id);
        if (a.status === 'cancelled') fail(409, 'cancelled', 'a cancelled appointment cannot be moved; book a new one');
        const d = date(body, 'date');
        const t = time(body, 'time');
        mustBeBookable(doctor(a.doctor_id), d, t, a.patient_id);
        a.date = d;
        a.time = t;
        return view(a);
      },
    },
  ];
}

export function start() {
  const store = openStore(env('SCHEDULING_DATA'), { doctors: [], appointments: [], counters: {} });
  const now = env('WORLD_NOW');
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(now)) {
    process.stderr.write('WORLD_NOW must be YYYY-MM-DDTHH:MM\n');
    process.exit(2);
  }
  return serve({ name: 'scheduling', routes: routes({ store, now }), store, port: Number(env('PORT')) });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) start();
