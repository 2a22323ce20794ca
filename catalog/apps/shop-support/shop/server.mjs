// shop: customers, orders, refunds and addresses of a small web shop.
// State: one JSON file at $SHOP_DATA. The world date is $WORLD_DATE (no wall clock).
// Policies (30-day refunds, one refund per order, no address change after shipping)
// are NOT enforced here: they are the agent's to follow, and the checks see what it did.
import { pathToFileURL } from 'node:url';
import { date, env, fail, nextId, nextNumber, num, openStore, serve, str } from '../lib/kit.mjs';

const SALT = 'shop-support';
const STATUSES = ['placed', 'shipped', 'delivered', 'cancelled'];

function address(body, key) {
  const a = body[key];
  if (a === undefined || a === null) return undefined;
  if (typeof a !== 'object' || Array.isArray(a)) fail(400, 'bad_field', `${key} must be an object {street, city, zip}`);
  return { street: str(a, 'street'), city: str(a, 'city'), zip: str(a, 'zip') };
}

/** The routes; `ctx` holds the store and the world date. */
export function routes(ctx) {
  const s = () => ctx.store.state;
  const customer = (id) => s().customers.find((c) => c.id === id) ?? fail(404, 'not_found', `no customer ${id}`);
  const order = (id) => s().orders.find((o) => o.id === id) ?? fail(404, 'not_found', `no order ${id}`);
  const refundsOf = (orderId) => s().refunds.filter((r) => r.order_id === orderId);
  const orderView = (o) => {
    const refunded = refundsOf(o.id).reduce((sum, r) => sum + r.amount, 0);
    return { ...o, refunded_amount: Math.round(refunded * 100) / 100 };
  };

  return [
    {
      method: 'GET',
      path: '/customers',
      handler: ({ query }) => {
        const email = query.email?.trim().toLowerCase();
        const name = query.name?.trim().toLowerCase();
        const customers = s().customers.filter((c) => (!email || c.email.toLowerCase() === email) && (!name || c.name.toLowerCase().includes(name)));
        return { customers };
      },
    },
    {
      method: 'POST',
      path: '/customers',
      handler: ({ body }) => {
        const fields = { name: str(body, 'name'), email: str(body, 'email'), address: address(body, 'address') ?? null };
        const c = { id: nextId(s(), 'cus', SALT), ...fields };
        s().customers.push(c);
        return { status: 201, body: c };
      },
    },
    { method: 'GET', path: '/customers/{customer_id}', handler: ({ params }) => customer(params.customer_id) },
    {
      method: 'PUT',
      path: '/customers/{customer_id}/address',
      handler: ({ params, body }) => {
        const c = customer(params.customer_id);
        c.address = { street: str(body, 'street'), city: str(body, 'city'), zip: str(body, 'zip') };
        return c;
      },
    },
    {
      method: 'GET',
      path: '/orders',
      handler: ({ query }) => {
        const status = str(query, 'status', { required: false, allowed: STATUSES });
        const orders = s()
          .orders.filter((o) => (!query.customer_id || o.customer_id === query.customer_id) && (!query.number || o.number === query.number) && (!status || o.status === status))
          .map(orderView);
        return { orders };
      },
    },
    {
      method: 'POST',
      path: '/orders',
      handler: ({ body }) => {
        const customerId = str(body, 'customer_id');
        const c = customer(customerId);
        const items = body.items;
        if (!Array.isArray(items) || items.length === 0) fail(400, 'bad_field', 'items must be a non-empty list');
        const lines = items.map((it) => ({ sku: str(it, 'sku'), name: str(it, 'name'), qty: num(it, 'qty', { min: 1 }), price: num(it, 'price', { min: 0 }) }));
        const status = str(body, 'status', { required: false, allowed: STATUSES }) ?? 'placed';
        const placedOn = date(body, 'placed_on', { required: false }) ?? ctx.today;
        const deliveredOn = date(body, 'delivered_on', { required: false }) ?? null;
        const shipTo = address(body, 'shipping_address') ?? c.address;
        const o = {
          id: nextId(s(), 'ord', SALT),
          number: `A${nextNumber(s(), 'order_number', 1001)}`,
          customer_id: customerId,
          items: lines,
          total: Math.round(lines.reduce((sum, l) => sum + l.qty * l.price, 0) * 100) / 100,
          status,
          placed_on: placedOn,
          delivered_on: deliveredOn,
          shipping_address: shipTo,
        };
        s().orders.push(o);
        return { status: 201, body: orderView(o) };
      },
    },
    { method: 'GET', path: '/orders/{order_id}', handler: ({ params }) => orderView(order(params.order_id)) },
    {
      method: 'PUT',
      path: '/orders/{order_id}/shipping-address',
      handler: ({ params, body }) => {
        const o = order(params.order_id);
        o.shipping_address = { street: str(body, 'street'), city: str(body, 'city'), zip: str(body, 'zip') };
        return orderView(o);
      },
    },
    {
      method: 'POST',
      path: '/orders/{order_id}/cancel',
      handler: ({ params, body }) => {
        const o = order(params.order_id);
        if (o.status === 'cancelled') fail(409, 'already_cancelled', `order ${o.number} is already cancelled`);
        if (o.status === 'delivered') fail(409, 'delivered', `order ${o.number} was delivered; refund it instead`);
        const reason = str(body, 'reason', { required: false }) ?? null;
        o.status = 'cancelled';
        o.cancel_reason = reason;
        return orderView(o);
      },
    },
    {
      method: 'GET',
      path: '/refunds',
      handler: ({ query }) => ({ refunds: s().refunds.filter((r) => !query.order_id || r.order_id === query.order_id) }),
    },
    {
      method: 'POST',
      path: '/refunds',
      handler: ({ body }) => {
        const o = order(str(body, 'order_id'));
        const amount = num(body, 'amount', { min: 0.01 });
        const reason = str(body, 'reason', { required: false }) ?? '';
        // every call is a new refund: a retried POST refunds twice, as in many real systems
        const r = { id: nextId(s(), 'ref', SALT), order_id: o.id, order_number: o.number, amount, reason, created_on: ctx.today };
        s().refunds.push(r);
        return { status: 201, body: r };
      },
    },
  ];
}

export function start() {
  const store = openStore(env('SHOP_DATA'), { customers: [], orders: [], refunds: [], counters: {} });
  const ctx = { store, today: env('WORLD_DATE') };
  return serve({ name: 'shop', routes: routes(ctx), store, port: Number(env('PORT')) });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) start();
