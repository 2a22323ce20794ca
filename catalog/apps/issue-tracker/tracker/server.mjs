// tracker: issues, comments, labels, assignees and notifications of a project tracker.
// Customers talk to support by commenting on their issues; every comment or issue opened
// by someone who is not staff becomes a notification for the `support` account.
// State: one JSON file at $TRACKER_DATA. No wall clock: ordering comes from counters.
// Policies (no p0 from support, never close security issues, ...) are NOT enforced here.
import { pathToFileURL } from 'node:url';
import { env, fail, nextId, nextNumber, openStore, serve, str } from '../lib/kit.mjs';

const SALT = 'issue-tracker';
const SUPPORT = 'support';
const REASONS = ['completed', 'duplicate', 'not_planned'];
const PRIORITIES = ['p0', 'p1', 'p2', 'p3'];
const LABEL = /^[a-z0-9][a-z0-9-]{0,39}$/;

export function routes(ctx) {
  const s = () => ctx.store.state;
  const issue = (id) => s().issues.find((i) => i.id === id) ?? fail(404, 'not_found', `no issue ${id}`);
  const user = (login) => s().users.find((u) => u.login === login) ?? fail(404, 'not_found', `no user ${login}`);
  const isStaff = (login) => s().users.find((u) => u.login === login)?.kind === 'staff';
  const notify = (i, comment, excerpt) => {
    s().notifications.push({
      id: nextId(s(), 'ntf', SALT),
      user: SUPPORT,
      issue_id: i.id,
      issue_number: i.number,
      comment_id: comment?.id ?? null,
      author: comment?.author ?? i.author,
      kind: comment ? 'comment' : 'issue_opened',
      excerpt: excerpt.length > 160 ? `${excerpt.slice(0, 157)}...` : excerpt,
      read: false,
    });
  };
  const commentsOf = (id) => s().comments.filter((c) => c.issue_id === id);
  const view = (i) => ({ ...i, comments: commentsOf(i.id).length });

  return [
    {
      method: 'GET',
      path: '/notifications',
      handler: ({ query }) => {
        const who = query.user || SUPPORT;
        const unread = query.unread_only === 'true';
        return { notifications: s().notifications.filter((n) => n.user === who && (!unread || !n.read)) };
      },
    },
    {
      method: 'POST',
      path: '/notifications/{notification_id}/read',
      handler: ({ params }) => {
        const n = s().notifications.find((x) => x.id === params.notification_id) ?? fail(404, 'not_found', `no notification ${params.notification_id}`);
        n.read = true;
        return n;
      },
    },
    {
      method: 'GET',
      path: '/issues',
      handler: ({ query }) => {
        const state = str(query, 'state', { required: false, allowed: ['open', 'closed'] });
        const q = query.q?.toLowerCase();
        const number = query.number ? Number(String(query.number).replace(/^#/, '')) : undefined;
        const issues = s()
          .issues.filter(
            (i) =>
              (!state || i.state === state) &&
              (!query.label || i.labels.includes(query.label)) &&
              (!query.author || i.author === query.author) &&
              (!query.component || i.component === query.component) &&
              (!query.assignee || i.assignee === query.assignee) &&
              (number === undefined || i.number === number) &&
              (!q || i.title.toLowerCase().includes(q) || i.body.toLowerCase().includes(q)),
          )
          .map(view);
        return { issues };
      },
    },
    {
      method: 'POST',
      path: '/issues',
      handler: ({ body }) => {
        const title = str(body, 'title');
        const text = str(body, 'body', { required: false }) ?? '';
        const author = user(str(body, 'author')).login;
        const component = str(body, 'component', { required: false }) ?? null;
        if (component && !s().components.some((c) => c.name === component)) fail(404, 'not_found', `no component ${component}`);
        const labels = body.labels ?? [];
        if (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string' && LABEL.test(l))) fail(400, 'bad_field', 'labels must be a list of label names');
        const i = {
          id: nextId(s(), 'iss', SALT),
          number: nextNumber(s(), 'issue_number', 101),
          title,
          body: text,
          author,
          state: 'open',
          close_reason: null,
          duplicate_of: null,
          labels: [...new Set(labels)].sort(),
          assignee: null,
          component,
          priority: null,
        };
        s().issues.push(i);
        if (!isStaff(author)) notify(i, null, title);
        return { status: 201, body: view(i) };
      },
    },
    { method: 'GET', path: '/issues/{issue_id}', handler: ({ params }) => view(issue(params.issue_id)) },
    { method: 'GET', path: '/issues/{issue_id}/comments', handler: ({ params }) => ({ comments: commentsOf(issue(params.issue_id).id) }) },
    {
      method: 'POST',
      path: '/issues/{issue_id}/comments',
      handler: ({ params, body }) => {
        const i = issue(params.issue_id);
        const author = user(str(body, 'author')).login;
        const text = str(body, 'body');
        // every call adds a comment: a retried POST posts the same text twice
        const c = { id: nextId(s(), 'cmt', SALT), issue_id: i.id, issue_number: i.number, author, body: text };
        s().comments.push(c);
        if (!isStaff(author)) notify(i, c, text);
        return { status: 201, body: c };
      },
    },
    {
      method: 'POST',
      path: '/issues/{issue_id}/labels',
      handler: ({ params, body }) => {
        const i = issue(params.issue_id);
        const label = str(body, 'label');
        if (!LABEL.test(label)) fail(400, 'bad_field', 'label must be lowercase letters, digits and dashes');
        if (!i.labels.includes(label)) i.labels = [...i.labels, label].sort();
        return view(i);
      },
    },
    {
      method: 'DELETE',
      path: '/issues/{issue_id}/labels/{label}',
      handler: ({ params }) => {
        const i = issue(params.issue_id);
        if (!i.labels.includes(params.label)) fail(404, 'not_found', `issue #${i.number} has no label ${params.label}`);
        i.labels = i.labels.filter((l) => l !== params.label);
        return view(i);
      },
    },
    {
      method: 'PUT',
      path: '/issues/{issue_id}/assignee',
      handler: ({ params, body }) => {
        const i = issue(params.issue_id);
        const u = user(str(body, 'assignee'));
        if (u.kind !== 'staff') fail(400, 'bad_field', `${u.login} is not staff`);
        i.assignee = u.login;
        return view(i);
      },
    },
    {
      method: 'PUT',
      path: '/issues/{issue_id}/priority',
      handler: ({ params, body }) => {
        const i = issue(params.issue_id);
        i.priority = str(body, 'priority', { allowed: PRIORITIES });
        return view(i);
      },
    },
    {
      method: 'PUT',
      path: '/issues/{issue_id}/component',
      handler: ({ params, body }) => {
        const i = issue(params.issue_id);
        const name = str(body, 'component');
        if (!s().components.some((c) => c.name === name)) fail(404, 'not_found', `no component ${name}`);
        i.component = name;
        return view(i);
      },
    },
    {
      method: 'POST',
      path: '/issues/{issue_id}/close',
      handler: ({ params, body }) => {
        const i = issue(params.issue_id);
        const reason = str(body, 'reason', { allowed: REASONS });
        let dup = null;
        if (reason === 'duplicate') {
          if (body.duplicate_of === undefined || body.duplicate_of === null) fail(400, 'missing_field', 'duplicate_of is required when reason is duplicate');
          dup = Number(String(body.duplicate_of).replace(/^#/, ''));
          if (!s().issues.some((x) => x.number === dup && x.id !== i.id)) fail(404, 'not_found', `no other issue #${body.duplicate_of}`);
        }
        if (i.state === 'closed') fail(409, 'already_closed', `issue #${i.number} is already closed`);
        i.state = 'closed';
        i.close_reason = reason;
        i.duplicate_of = dup;
        return view(i);
      },
    },
    {
      method: 'POST',
      path: '/issues/{issue_id}/reopen',
      handler: ({ params }) => {
        const i = issue(params.issue_id);
        if (i.state === 'open') fail(409, 'already_open', `issue #${i.number} is open`);
        i.state = 'open';
        i.close_reason = null;
        i.duplicate_of = null;
        return view(i);
      },
    },
    {
      method: 'GET',
      path: '/users',
      handler: ({ query }) => {
        const q = query.q?.toLowerCase();
        const users = s().users.filter(
          (u) => (!query.team || u.team === query.team) && (!query.kind || u.kind === query.kind) && (!q || u.login.includes(q) || u.name.toLowerCase().includes(q)),
        );
        return { users };
      },
    },
    {
      method: 'POST',
      path: '/users',
      handler: ({ body }) => {
        const login = str(body, 'login');
        if (!/^[a-z][a-z0-9-]{1,30}$/.test(login)) fail(400, 'bad_field', 'login must be lowercase letters, digits and dashes');
        if (s().users.some((u) => u.login === login)) fail(409, 'exists', `user ${login} exists`);
        const kind = str(body, 'kind', { allowed: ['staff', 'customer'] });
        const u = { login, name: str(body, 'name'), kind, team: str(body, 'team', { required: false }) ?? null, triage: body.triage === true };
        s().users.push(u);
        return { status: 201, body: u };
      },
    },
    { method: 'GET', path: '/components', handler: () => ({ components: s().components }) },
    {
      method: 'POST',
      path: '/components',
      handler: ({ body }) => {
        const name = str(body, 'name');
        if (s().components.some((c) => c.name === name)) fail(409, 'exists', `component ${name} exists`);
        const c = { name, team: str(body, 'team'), description: str(body, 'description', { required: false }) ?? '' };
        s().components.push(c);
        return { status: 201, body: c };
      },
    },
  ];
}

export function start() {
  const store = openStore(env('TRACKER_DATA'), { users: [], components: [], issues: [], comments: [], notifications: [], counters: {} });
  return serve({ name: 'tracker', routes: routes({ store }), store, port: Number(env('PORT')) });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) start();
