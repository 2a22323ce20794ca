import type { FieldProblem } from '../core/index.js';
import { isBuiltinTool, roleToolNames } from './builtin-tools.js';
import { Problems } from './schema-kit.js';
import { collectRefs } from './substitute.js';
import type { AppTool, Check, PlanStep, ScenarioTemplate, SeedStep, WorldManifest } from './types.js';

/**
 * Checks that need several files at once: tool names against the derived tools, roles
 * against plans, the customer channel against the services, and every `${...}` reference
 * against the names that exist where it is used. Returns the problems (empty: fine).
 */
export function crossCheck(
  manifest: WorldManifest,
  tools: AppTool[],
  worldSeed: SeedStep[],
  templates: ScenarioTemplate[],
  seedFile = 'seed',
): FieldProblem[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const problems: FieldProblem[] = [];
  const wp = new Problems('world.yaml');
  checkRoles(wp, manifest, byName);
  const sendRoots = checkCustomer(wp, manifest, byName);
  problems.push(...wp.list);

  const sp = new Problems(seedFile);
  const worldBinds = checkSeed(sp, worldSeed, 'steps', new Set(), byName);
  problems.push(...sp.list);

  const ids = new Set<string>();
  for (const t of templates) {
    const tp = new Problems(t.file);
    if (ids.has(t.id)) tp.add('id', `template id "${t.id}" is used by another file too`);
    ids.add(t.id);
    checkTemplate(tp, t, manifest, byName, worldBinds, sendRoots);
    problems.push(...tp.list);
  }
  return problems;
}

function checkRoles(p: Problems, manifest: WorldManifest, byName: Map<string, AppTool>): void {
  manifest.roles.forEach((role, i) => {
    for (const tool of role.tools) {
      if (tool === 'reply_to_customer' && manifest.customer.channel === 'notifications') {
        p.add(
          `roles[${i}].tools`,
          'reply_to_customer is not offered in a notifications world: the customer is answered with customer.via.reply_tool',
        );
      } else if (tool === 'send_message' && manifest.roles.length < 2) {
        p.add(`roles[${i}].tools`, 'send_message needs a second role');
      } else if (!byName.has(tool) && !isBuiltinTool(tool)) {
        p.add(`roles[${i}].tools`, `unknown tool "${tool}" (not an operationId of any service, not a built-in)`);
      }
    }
  });
  const talks =
    manifest.customer.channel === 'chat' ? manifest.roles.some((r) => r.tools.includes('reply_to_customer')) : true;
  if (!talks) p.add('roles', 'no role lists reply_to_customer, so nobody can talk to the customer');
}

/** Returns the variable roots `send_args` needs from every scenario (besides `text`). */
function checkCustomer(p: Problems, manifest: WorldManifest, byName: Map<string, AppTool>): Set<string> {
  const c = manifest.customer;
  if (c.channel !== 'notifications') return new Set();
  const via = c.via;
  if (!manifest.services.some((s) => s.name === via.service))
    p.add('customer.via.service', `no service named "${via.service}"`);
  const need = (field: string, name: string, kind: 'read' | 'write') => {
    const t = byName.get(name);
    if (!t) p.add(`customer.via.${field}`, `unknown tool "${name}"`);
    else {
      if (t.kind !== kind) p.add(`customer.via.${field}`, `"${name}" must be a ${kind} tool`);
      if (t.service !== via.service)
        p.add(`customer.via.${field}`, `"${name}" belongs to service "${t.service}", not "${via.service}"`);
    }
    return t;
  };
  need('send_tool', via.send_tool, 'write');
  need('inbox_tool', via.inbox_tool, 'read');
  via.read_tools.forEach((t) => need('read_tools', t, 'read'));
  const reply = need('reply_tool', via.reply_tool, 'write');
  if (reply && !(via.reply_text_arg in reply.parameters.properties))
    p.add('customer.via.reply_text_arg', `"${via.reply_tool}" has no argument "${via.reply_text_arg}"`);
  const sender = byName.get(via.send_tool);
  if (sender)
    for (const arg of Object.keys(via.send_args))
      if (!(arg in sender.parameters.properties))
        p.add(`customer.via.send_args.${arg}`, `"${via.send_tool}" has no argument "${arg}"`);
  const completer = manifest.roles.find((r) => r.complete);
  if (completer && (!completer.tools.includes(via.inbox_tool) || !completer.tools.includes(via.reply_tool))) {
    p.add('roles', `the role holding complete ("${completer.name}") must list ${via.inbox_tool} and ${via.reply_tool}`);
  }
  return new Set(
    collectRefs(via.send_args)
      .map((r) => r.root)
      .filter((r) => r !== 'text'),
  );
}

function checkRefs(p: Problems, value: unknown, field: string, known: Set<string>, hint: string): void {
  for (const ref of collectRefs(value)) {
    if (!known.has(ref.root)) p.add(field, `${ref.text}: "${ref.root}" is not defined here (${hint})`);
  }
}

function checkSeed(
  p: Problems,
  steps: SeedStep[],
  path: string,
  known: Set<string>,
  byName: Map<string, AppTool>,
): Set<string> {
  const names = new Set(known);
  steps.forEach((s, i) => {
    const at = `${path}[${i}]`;
    if (!byName.has(s.tool)) p.add(`${at}.tool`, `unknown application tool "${s.tool}"`);
    else checkArgs(p, byName.get(s.tool)!, s.args, `${at}.args`);
    checkRefs(p, s.args, `${at}.args`, names, 'seed steps see variables, facts and earlier seed bindings');
    if (s.bind) bindName(p, names, s.bind, `${at}.bind`);
  });
  return names;
}

function bindName(p: Problems, names: Set<string>, bind: string, at: string): void {
  if (names.has(bind) || bind === 'facts' || bind === 'text')
    p.add(at, `"${bind}" is already a variable, fact root or binding`);
  names.add(bind);
}

function checkArgs(p: Problems, tool: AppTool, args: Record<string, unknown>, at: string): void {
  for (const k of Object.keys(args))
    if (!(k in tool.parameters.properties)) p.add(`${at}.${k}`, `"${tool.name}" has no argument "${k}"`);
  for (const r of tool.parameters.required) if (!(r in args)) p.add(at, `"${tool.name}" needs argument "${r}"`);
}

function checkTemplate(
  p: Problems,
  t: ScenarioTemplate,
  manifest: WorldManifest,
  byName: Map<string, AppTool>,
  worldBinds: Set<string>,
  sendRoots: Set<string>,
): void {
  const vars = new Set(Object.keys(t.variants[0] ?? {}));
  const base = new Set([...vars, ...worldBinds, 'facts']);
  for (const w of worldBinds) if (vars.has(w)) p.add('variants', `variable "${w}" repeats a world seed binding`);
  const afterSeed = checkSeed(p, t.seed, 'seed', base, byName);
  const customerText = 'the customer knows variables, facts and seed bindings';
  checkRefs(p, t.persona, 'persona', afterSeed, customerText);
  checkRefs(p, t.request, 'request', afterSeed, customerText);
  t.revisions.forEach((r, i) => {
    checkRefs(p, r.text, `revisions[${i}].text`, afterSeed, customerText);
    if (
      typeof r.at === 'object' &&
      'after_tool' in r.at &&
      !byName.has(r.at.after_tool) &&
      !isBuiltinTool(r.at.after_tool)
    ) {
      p.add(`revisions[${i}].at.after_tool`, `unknown tool "${r.at.after_tool}"`);
    }
  });
  // a variant value may itself be a reference to a binding, resolved at run time
  t.variants.forEach((v, i) =>
    checkRefs(
      p,
      v,
      `variants[${i}]`,
      new Set([...worldBinds, ...afterSeed].filter((n) => !vars.has(n))),
      'variant values may refer to seed bindings only',
    ),
  );
  for (const [k, f] of Object.entries(t.facts))
    checkRefs(p, f.value, `facts.${k}.value`, new Set([...vars, ...afterSeed]), customerText);
  const factRefs = collectRefs([t.seed, t.reference_plan, t.checks, t.persona, t.request, t.revisions]).filter(
    (r) => r.root === 'facts',
  );
  for (const r of factRefs)
    if (!r.path[0] || !(r.path[0] in t.facts)) p.add('facts', `${r.text} names no fact of this template`);
  for (const root of sendRoots)
    if (!afterSeed.has(root))
      p.add('seed', `customer.via.send_args needs "\${${root}...}": bind it in the seed or define it in every variant`);

  for (const [version, steps] of Object.entries(t.reference_plan))
    checkPlan(
      p,
      steps,
      `reference_plan.${version}`,
      manifest,
      byName,
      afterSeed,
      Number(version) === t.revisions.length + 1,
    );
  for (const [version, checks] of Object.entries(t.checks)) {
    checks.forEach((c, i) => checkCheck(p, c, `checks.${version}[${i}]`, byName, afterSeed));
  }
  // a scheduled fault must hit a call the reference plan makes, or it proves nothing
  const finalPlan = t.reference_plan[String(t.revisions.length + 1)] ?? [];
  (t.faults ?? []).forEach((f, i) => {
    if (!byName.has(f.tool))
      p.add(`faults[${i}].tool`, `"${f.tool}" is not a tool of this application (faults hit application calls)`);
    else {
      const calls = finalPlan.filter((s) => s.tool === f.tool).length;
      if (calls < f.call)
        p.add(
          `faults[${i}].call`,
          `the final reference plan calls ${f.tool} ${calls} time(s), so call ${f.call} never happens`,
        );
    }
  });
}

function checkPlan(
  p: Problems,
  steps: PlanStep[],
  path: string,
  manifest: WorldManifest,
  byName: Map<string, AppTool>,
  known: Set<string>,
  isFinal: boolean,
): void {
  const names = new Set(known);
  steps.forEach((s, i) => {
    const at = `${path}[${i}]`;
    const role = manifest.roles.find((r) => r.name === s.actor);
    if (!role) p.add(`${at}.actor`, `no role named "${s.actor}"`);
    else if (!roleToolNames(role).includes(s.tool)) p.add(`${at}.tool`, `role "${s.actor}" is not offered "${s.tool}"`);
    const app = byName.get(s.tool);
    if (app) checkArgs(p, app, s.args, `${at}.args`);
    else if (s.tool === 'send_message') {
      if (typeof s.args.to !== 'string' || !manifest.roles.some((r) => r.name === s.args.to && r.name !== s.actor))
        p.add(`${at}.args.to`, 'must name another role');
      if (typeof s.args.text !== 'string') p.add(`${at}.args.text`, 'is required');
    } else if (s.tool === 'reply_to_customer' && typeof s.args.text !== 'string')
      p.add(`${at}.args.text`, 'is required');
    checkRefs(
      p,
      s.args,
      `${at}.args`,
      names,
      'plan steps see variables, facts, seed bindings and earlier plan bindings',
    );
    if (s.bind) {
      if (!app) p.add(`${at}.bind`, 'only application tool results can be bound');
      bindName(p, names, s.bind, `${at}.bind`);
    }
  });
  const completes = steps.filter((s) => s.tool === 'complete').length;
  if (isFinal && (completes !== 1 || steps[steps.length - 1]?.tool !== 'complete'))
    p.add(path, 'the final plan ends with exactly one complete step');
}

function checkCheck(p: Problems, c: Check, at: string, byName: Map<string, AppTool>, known: Set<string>): void {
  const hint = 'checks see variables, facts and seed bindings (not plan bindings: an agent episode has none)';
  if (c.kind === 'state' || c.kind === 'unchanged') {
    const tool = byName.get(c.tool);
    if (!tool) p.add(`${at}.tool`, `unknown application tool "${c.tool}"`);
    else if (tool.kind !== 'read') p.add(`${at}.tool`, `"${c.tool}" is a write; checks read`);
    else checkArgs(p, tool, c.args, `${at}.args`);
    checkRefs(p, c, at, known, hint);
  } else if (c.kind === 'refused') {
    const tool = byName.get(c.tool);
    if (!tool) p.add(`${at}.tool`, `unknown application tool "${c.tool}"`);
    else if (tool.kind !== 'write') p.add(`${at}.tool`, `"${c.tool}" is a read; refused names a write`);
    checkRefs(p, c.where, `${at}.where`, known, hint);
  } else checkRefs(p, c, at, known, hint);
}
