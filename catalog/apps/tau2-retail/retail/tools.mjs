// The retail shop of tau2-bench (data/SOURCE.md), as tools over its database: each tool
// checks, answers and changes the data as tau2's retail toolkit does (its public
// src/tau2/domains/retail/tools.py), down to the error messages and to one quirk kept on
// purpose (modify_pending_order_items, below). Plain ESM, no dependencies: the service
// (server.mjs) and the world's importer (world/import-tau2.ts, which replays each task's gold
// actions with it to write the expected database) both run this one file.
//
// The starting database is never changed: a write copies the record it touches into
// `touched` first, and reads see the copy. So a fresh episode costs nothing whatever the
// database's size (reset empties `touched`), and `changes()` is the record-level
// difference from the start, read only from the records touched.

/** A tool refused: tau2 raises ValueError(message) and the agent sees `Error: <message>`. */
export class ToolError extends Error {}

const TABLES = ['products', 'users', 'orders'];
const CANCEL_REASONS = new Set(['no longer needed', 'ordered by mistake']);

/** Python's round(x, 2): correctly rounded from the binary value, exact ties to even. */
export function round2(x) {
  const scaled = x * 100;
  const floor = Math.floor(scaled);
  // a tie only when the binary value is exactly half a cent (e.g. 0.125); else toFixed is right
  if (scaled - floor === 0.5 && floor / 100 + 0.005 === x) return (floor % 2 === 0 ? floor : floor + 1) / 100;
  return Number(x.toFixed(2));
}

/** Python's str() of a float: integers keep ".0" (str(4.0) is "4.0"). */
export function pyFloatStr(x) {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  return String(x);
}

/** Case- and accent-insensitive form of a name or e-mail, as tau2's lookups compare them. */
const fold = (s) =>
  String(s)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .trim();

/**
 * Evaluates an arithmetic expression of numbers, + - * / ** //, parentheses and spaces, as
 * Python's eval does for the characters tau2's `calculate` lets through. A small parser
 * rather than eval: the expression is the agent's text.
 */
export function evaluate(expression) {
  const tokens = expression.match(/\d*\.\d+|\d+\.?|\*\*|\/\/|[-+*/()]|\S/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const take = () => tokens[i++];
  const syntax = () => new ToolError('invalid syntax (<string>, line 1)');
  const atom = () => {
    const t = take();
    if (t === undefined) throw syntax();
    if (t === '(') {
      const v = sum();
      if (take() !== ')') throw syntax();
      return v;
    }
    if (/^(\d*\.\d+|\d+\.?)$/.test(t)) return Number(t);
    throw syntax();
  };
  // Python: unary minus binds looser than **, so -2 ** 2 is -4
  const unary = () => {
    if (peek() === '-' || peek() === '+') return take() === '-' ? -unary() : unary();
    return power();
  };
  const power = () => {
    const base = atom();
    if (peek() === '**') {
      take();
      return base ** unary();
    }
    return base;
  };
  const product = () => {
    let v = unary();
    while (['*', '/', '//'].includes(peek())) {
      const op = take();
      const r = unary();
      if ((op === '/' || op === '//') && r === 0) throw new ToolError(op === '/' ? 'division by zero' : 'integer division or modulo by zero');
      v = op === '*' ? v * r : op === '/' ? v / r : Math.floor(v / r);
    }
    return v;
  };
  const sum = () => {
    let v = product();
    while (peek() === '+' || peek() === '-') v = take() === '+' ? v + product() : v - product();
    return v;
  };
  const v = sum();
  if (i !== tokens.length) throw syntax();
  return v;
}

/** Deterministic JSON (keys sorted): how records are compared. */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** Leaf-level differences between two JSON values, as `{path: {before?, after?}}` (absent sides left out). */
function diffValues(before, after, at, out) {
  if (canonical(before) === canonical(after)) return out;
  const bothObjects = before && after && typeof before === 'object' && typeof after === 'object';
  if (bothObjects && Array.isArray(before) === Array.isArray(after)) {
    const keys = Array.isArray(before)
      ? Array.from({ length: Math.max(before.length, after.length) }, (_, k) => String(k))
      : [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) diffValues(before[k], after[k], at ? `${at}.${k}` : k, out);
    return out;
  }
  const d = {};
  if (before !== undefined) d.before = before;
  if (after !== undefined) d.after = after;
  out[at || '(record)'] = d;
  return out;
}

/** The shop over `db` ({products, users, orders}, left unchanged). `touched` restores saved copies. */
export function createRetail(db, touched = {}) {
  /** `table/id` -> the current copy of a record a write has touched. */
  const copies = new Map(Object.entries(structuredClone(touched)));

  const read = (table, id) => copies.get(`${table}/${id}`) ?? db[table][id];
  const has = (table, id) => typeof id === 'string' && Object.hasOwn(db[table], id);
  const write = (table, id) => {
    const key = `${table}/${id}`;
    if (!copies.has(key)) copies.set(key, structuredClone(db[table][id]));
    return copies.get(key);
  };

  const order = (id) => {
    if (!has('orders', id)) throw new ToolError('Order not found');
    return read('orders', id);
  };
  const user = (id) => {
    if (!has('users', id)) throw new ToolError('User not found');
    return read('users', id);
  };
  const product = (id) => {
    if (!has('products', id)) throw new ToolError('Product not found');
    return read('products', id);
  };
  const variant = (productId, itemId) => {
    const p = product(productId);
    if (typeof itemId !== 'string' || !Object.hasOwn(p.variants, itemId)) throw new ToolError('Variant not found');
    return p.variants[itemId];
  };
  const paymentMethod = (userId, methodId) => {
    const u = user(userId);
    if (typeof methodId !== 'string' || !Object.hasOwn(u.payment_methods, methodId))
      throw new ToolError('Payment method not found');
    return u.payment_methods[methodId];
  };
  const giftCard = (userId, methodId) => write('users', userId).payment_methods[methodId];
  const isGiftCard = (m) => m.source === 'gift_card';
  const count = (list, x) => list.filter((y) => y === x).length;
  const address = (a) => ({
    address1: a.address1,
    address2: a.address2,
    city: a.city,
    state: a.state,
    country: a.country,
    zip: a.zip,
  });

  const tools = {
    calculate({ expression }) {
      if (![...expression].every((c) => '0123456789+-*/(). '.includes(c)))
        throw new ToolError('Invalid characters in expression');
      return pyFloatStr(round2(evaluate(expression)));
    },

    cancel_pending_order({ order_id, reason }) {
      const o = order(order_id);
      if (o.status !== 'pending') throw new ToolError('Non-pending order cannot be cancelled');
      if (!CANCEL_REASONS.has(reason)) throw new ToolError('Invalid reason');
      const refunds = [];
      for (const payment of o.payment_history) {
        refunds.push({ transaction_type: 'refund', amount: payment.amount, payment_method_id: payment.payment_method_id });
        const method = paymentMethod(o.user_id, payment.payment_method_id);
        if (isGiftCard(method)) {
          const card = giftCard(o.user_id, payment.payment_method_id);
          card.balance = round2(card.balance + payment.amount);
        }
      }
      const w = write('orders', order_id);
      w.status = 'cancelled';
      w.cancel_reason = reason;
      w.payment_history.push(...refunds);
      return w;
    },

    exchange_delivered_order_items({ order_id, item_ids, new_item_ids, payment_method_id }) {
      const o = order(order_id);
      if (o.status !== 'delivered') throw new ToolError('Non-delivered order cannot be exchanged');
      const all = o.items.map((it) => it.item_id);
      for (const id of item_ids) if (count(item_ids, id) > count(all, id)) throw new ToolError(`Number of ${id} not found.`);
      if (item_ids.length !== new_item_ids.length) throw new ToolError('The number of items to be exchanged should match.');
      let diff = 0;
      item_ids.forEach((id, k) => {
        const item = o.items.find((it) => it.item_id === id);
        if (!item) throw new ToolError(`Item ${id} not found`);
        const v = variant(item.product_id, new_item_ids[k]);
        if (!v.available) throw new ToolError(`New item ${new_item_ids[k]} not found or available`);
        diff += v.price - item.price;
      });
      diff = round2(diff);
      const method = paymentMethod(o.user_id, payment_method_id);
      if (isGiftCard(method) && method.balance < diff)
        throw new ToolError('Insufficient gift card balance to pay for the price difference');
      const w = write('orders', order_id);
      w.status = 'exchange requested';
      w.exchange_items = [...item_ids].sort();
      w.exchange_new_items = [...new_item_ids].sort();
      w.exchange_payment_method_id = payment_method_id;
      w.exchange_price_difference = diff;
      return w;
    },

    find_user_id_by_name_zip({ first_name, last_name, zip }) {
      for (const id of Object.keys(db.users)) {
        const u = read('users', id);
        if (fold(u.name.first_name) === fold(first_name) && fold(u.name.last_name) === fold(last_name) && u.address.zip === zip)
          return id;
      }
      throw new ToolError('User not found');
    },

    find_user_id_by_email({ email }) {
      for (const id of Object.keys(db.users)) if (fold(read('users', id).email) === fold(email)) return id;
      throw new ToolError('User not found');
    },

    get_order_details: ({ order_id }) => order(order_id),
    get_product_details: ({ product_id }) => product(product_id),
    get_user_details: ({ user_id }) => user(user_id),

    get_item_details({ item_id }) {
      for (const id of Object.keys(db.products)) {
        const p = read('products', id);
        if (typeof item_id === 'string' && Object.hasOwn(p.variants, item_id)) return p.variants[item_id];
      }
      throw new ToolError('Item not found');
    },

    list_all_product_types() {
      // tau2 answers json.dumps(..., sort_keys=True): a string, with Python's separators
      const byName = {};
      for (const id of Object.keys(db.products)) byName[read('products', id).name] = id;
      const names = Object.keys(byName).sort();
      return `{${names.map((n) => `${JSON.stringify(n)}: ${JSON.stringify(byName[n])}`).join(', ')}}`;
    },

    modify_pending_order_address({ order_id, ...a }) {
      if (!order(order_id).status.includes('pending')) throw new ToolError('Non-pending order cannot be modified');
      const w = write('orders', order_id);
      w.address = address(a);
      return w;
    },

    modify_pending_order_items({ order_id, item_ids, new_item_ids, payment_method_id }) {
      const o = order(order_id);
      if (o.status !== 'pending') throw new ToolError('Non-pending order cannot be modified');
      const all = o.items.map((it) => it.item_id);
      for (const id of item_ids) if (count(item_ids, id) > count(all, id)) throw new ToolError(`${id} not found`);
      if (item_ids.length !== new_item_ids.length) throw new ToolError('The number of items to be exchanged should match');
      let diff = 0;
      let last;
      item_ids.forEach((id, k) => {
        if (id === new_item_ids[k]) throw new ToolError('The new item id should be different from the old item id');
        const item = o.items.find((it) => it.item_id === id);
        if (!item) throw new ToolError(`Item ${id} not found`);
        last = variant(item.product_id, new_item_ids[k]);
        if (!last.available) throw new ToolError(`New item ${new_item_ids[k]} not found or available`);
        diff += last.price - item.price;
      });
      const method = paymentMethod(o.user_id, payment_method_id);
      if (isGiftCard(method) && method.balance < diff)
        throw new ToolError('Insufficient gift card balance to pay for the new item');
      const w = write('orders', order_id);
      w.payment_history.push({
        transaction_type: diff > 0 ? 'payment' : 'refund',
        amount: Math.abs(diff),
        payment_method_id,
      });
      if (isGiftCard(method)) {
        const card = giftCard(o.user_id, payment_method_id);
        card.balance = round2(card.balance - diff);
      }
      // tau2's quirk, kept so its gold databases match: every modified item takes the price
      // and options of the LAST new variant of the list (its loop reuses that variable)
      item_ids.forEach((id, k) => {
        const item = w.items.find((it) => it.item_id === id);
        item.item_id = new_item_ids[k];
        item.price = last.price;
        item.options = structuredClone(last.options);
      });
      w.status = 'pending (item modified)';
      return w;
    },

    modify_pending_order_payment({ order_id, payment_method_id }) {
      const o = order(order_id);
      if (!o.status.includes('pending')) throw new ToolError('Non-pending order cannot be modified');
      const method = paymentMethod(o.user_id, payment_method_id);
      const first = o.payment_history[0];
      if (o.payment_history.length !== 1 || first.transaction_type !== 'payment')
        throw new ToolError('There should be exactly one payment for a pending order');
      if (first.payment_method_id === payment_method_id)
        throw new ToolError('The new payment method should be different from the current one');
      const amount = first.amount;
      if (isGiftCard(method) && method.balance < amount)
        throw new ToolError('Insufficient gift card balance to pay for the order');
      const w = write('orders', order_id);
      w.payment_history.push(
        { transaction_type: 'payment', amount, payment_method_id },
        { transaction_type: 'refund', amount, payment_method_id: first.payment_method_id },
      );
      if (isGiftCard(method)) {
        const card = giftCard(o.user_id, payment_method_id);
        card.balance = round2(card.balance - amount);
      }
      if (isGiftCard(paymentMethod(o.user_id, first.payment_method_id))) {
        const old = giftCard(o.user_id, first.payment_method_id);
        old.balance = round2(old.balance + amount);
      }
      return w;
    },

    modify_user_address({ user_id, ...a }) {
      user(user_id);
      const w = write('users', user_id);
      w.address = address(a);
      return w;
    },

    return_delivered_order_items({ order_id, item_ids, payment_method_id }) {
      const o = order(order_id);
      if (o.status !== 'delivered') throw new ToolError('Non-delivered order cannot be returned');
      paymentMethod(o.user_id, payment_method_id);
      const method = paymentMethod(o.user_id, payment_method_id);
      if (!isGiftCard(method) && payment_method_id !== o.payment_history[0].payment_method_id)
        throw new ToolError('Payment method should be the original payment method');
      const all = o.items.map((it) => it.item_id);
      for (const id of item_ids) if (count(item_ids, id) > count(all, id)) throw new ToolError('Some item not found');
      const w = write('orders', order_id);
      w.status = 'return requested';
      w.return_items = [...item_ids].sort();
      w.return_payment_method_id = payment_method_id;
      return w;
    },

    transfer_to_human_agents: () => 'Transfer successful',
  };

  return {
    tools,
    /** The touched records, for saving: `createRetail(db, touched())` restores them. */
    touched: () => Object.fromEntries(copies),
    /** Back to the starting database. */
    reset: () => copies.clear(),
    /**
     * The record-level difference from the starting database, sorted by table and id:
     * `[{table, id, fields: {path: {before?, after?}}}]`, one entry per record that differs.
     * Equal lists mean equal databases (tau2 compares a hash of the whole state).
     */
    changes() {
      const out = [];
      for (const [key, copy] of copies) {
        const cut = key.indexOf('/');
        const table = key.slice(0, cut);
        const id = key.slice(cut + 1);
        const fields = diffValues(db[table][id], copy, '', {});
        if (Object.keys(fields).length > 0) out.push({ table, id, fields });
      }
      const rank = (e) => TABLES.indexOf(e.table);
      return out.sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
  };
}
