#!/usr/bin/env python3
"""A sample external agent for Crucible, written with the Python client only.

It plays a whole run: it loops over the waiting turns of the run's episodes, keeps a
memory per (episode, actor), and sends one action per turn. By default a small
rule-based policy decides (ask who the customer is, read with the read tools, reply,
complete); with OPENAI_BASE_URL and MODEL set, any OpenAI-compatible model decides instead.

    pip install <server>/downloads/crucible_client-0.1.2-py3-none-any.whl   # or PYTHONPATH=clients/python
    export SERVICE_URL=http://localhost:8080 SERVICE_API_KEY=svc_...         # or `crucible login`
    python3 examples/python_agent.py --world-version wv_...   # creates an external profile, starts a run
    python3 examples/python_agent.py --run run_...            # plays a run started elsewhere

The key needs `write` and `evaluator` (what `crucible login` hands out). Model settings:
OPENAI_BASE_URL (e.g. https://api.openai.com/v1), MODEL (or OPENAI_MODEL), OPENAI_API_KEY.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import urllib.request
import uuid

from crucible_client import ApiError, Client

RUN_ENDED = ("finished", "failed", "cancelled")
READ_PREFIXES = ("get_", "list_", "find_", "search_", "read_", "lookup_", "show_")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
MAX_READS = 5
MAX_TURNS = 15


class Memory:
    """What one actor of one episode knows: its conversation and the facts it has read."""

    def __init__(self) -> None:
        self.messages: list[dict] = []  # OpenAI chat format, for the model policy
        self.facts: dict[str, str] = {}  # parameter name -> value seen (email, customer_id, ...)
        self.reads: set[str] = set()
        self.asked = False
        self.told = False
        self.turns = 0
        self.pending_call: str | None = None  # tool_call id of the action whose result comes next

    def learn(self, new: list[dict]) -> None:
        """Takes in what arrived since this actor last acted: tool results, customer and team messages."""
        for m in new:
            msg = dict(m)
            if m["role"] == "tool":
                if self.pending_call:
                    msg["tool_call_id"] = self.pending_call
                    self.pending_call = None
                try:
                    collect_facts(json.loads(m["content"]).get("body"), None, self.facts)
                except (ValueError, AttributeError):
                    pass
            elif m["role"] == "user":
                for email in EMAIL.findall(m["content"]):
                    self.facts.setdefault("email", email)
            self.messages.append(msg)


def collect_facts(value, key: str | None, facts: dict) -> None:
    """Ids and e-mail addresses from an application's answer, named as tool parameters are:
    the first item of `customers` gives `customer_id`, `order: {id}` gives `order_id`."""
    if isinstance(value, list):
        for item in value[:1]:
            collect_facts(item, key[:-1] if key and key.endswith("s") else key, facts)
    elif isinstance(value, dict):
        if key and isinstance(value.get("id"), str):
            facts.setdefault(f"{key}_id", value["id"])
        for k, v in value.items():
            if isinstance(v, str) and (k.endswith("_id") or k == "email"):
                facts.setdefault(k, v)
            elif isinstance(v, (dict, list)):
                collect_facts(v, k, facts)


def rule_policy(turn: dict, mem: Memory) -> tuple[str, dict]:
    """Read tools first, then reply, then complete; actors without `complete` wait."""
    tools = {t["function"]["name"]: t["function"] for t in turn["tools"]}
    if "complete" not in tools:
        return "wait", {}  # offered in every world: the actor holding `complete` leads
    if mem.turns >= MAX_TURNS:
        return "complete", {"summary": "Stopping here: the turn budget of this sample agent is used up."}
    if not mem.facts and "reply_to_customer" in tools:
        if not mem.asked:
            return "reply_to_customer", {"text": "Happy to help! Could you tell me the e-mail address on your account, so I can look this up?"}
        if not any(m["role"] == "user" for m in turn["new"]):
            return "wait", {}
    if len(mem.reads) < MAX_READS:
        for name, fn in tools.items():
            if not name.startswith(READ_PREFIXES):
                continue
            params = fn.get("parameters", {})
            required = params.get("required", [])
            args = {p: mem.facts[p] for p in params.get("properties", {}) if p in mem.facts}
            signature = f"{name}:{json.dumps(args, sort_keys=True)}"
            if args and all(p in args for p in required) and signature not in mem.reads:
                mem.reads.add(signature)
                return name, args
    if not mem.told and "reply_to_customer" in tools:
        known = ", ".join(f"{k} {v}" for k, v in sorted(mem.facts.items())) or "your request"
        return "reply_to_customer", {"text": f"Thank you for waiting. I have looked up {known} and checked what you asked for."}
    return "complete", {"summary": f"Looked up {len(mem.reads)} records and answered the customer."}


def model_policy(turn: dict, mem: Memory) -> tuple[str, dict]:
    """Asks an OpenAI-compatible model for exactly one tool call with the turn's tools."""
    base = os.environ["OPENAI_BASE_URL"].rstrip("/")
    body = {"model": os.environ.get("MODEL") or os.environ.get("OPENAI_MODEL"), "messages": mem.messages, "tools": turn["tools"], "tool_choice": "required"}
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"
    req = urllib.request.Request(f"{base}/chat/completions", data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=120) as res:
        message = json.load(res)["choices"][0]["message"]
    calls = message.get("tool_calls") or []
    if not calls:  # the model answered in words: say it to the customer when allowed
        names = {t["function"]["name"] for t in turn["tools"]}
        return ("reply_to_customer", {"text": message.get("content") or "..."}) if "reply_to_customer" in names else ("wait", {})
    fn = calls[0]["function"]
    try:
        args = json.loads(fn.get("arguments") or "{}")
    except ValueError:
        args = {}
    return fn["name"], args if isinstance(args, dict) else {}


def play_turn(client: Client, ep_id: str, turn: dict, memory: dict, use_model: bool, log) -> None:
    """Decides and sends the one action of a waiting turn, and records it in the actor's memory."""
    mem = memory.setdefault((ep_id, turn["actor"]), Memory())
    mem.learn(turn["new"])
    tool, args = (model_policy if use_model else rule_policy)(turn, mem)
    key = uuid.uuid4().hex
    answer = client.external.act(ep_id, turn["actor"], tool, args, key)
    result = answer.get("result") or {}
    ok = not isinstance(result, dict) or result.get("outcome", "ok") == "ok"
    mem.turns += 1
    mem.asked |= tool == "reply_to_customer" and ok and not mem.facts
    mem.told |= tool == "reply_to_customer" and ok and bool(mem.facts)
    mem.messages.append({"role": "assistant", "content": None, "tool_calls": [{"id": key, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]})
    mem.pending_call = key
    log(f"{ep_id} {turn['actor']}: {tool} {json.dumps(args)} -> {str(result.get('content') if isinstance(result, dict) else result)[:100]}")


def play_run(client: Client, run_id: str, use_model: bool, log=print, poll_s: float = 1.0) -> dict:
    """Plays every waiting turn of the run until the run has ended; answers the run."""
    memory: dict = {}
    while True:
        acted = False
        for ep in client.runs.episodes(run_id):
            if ep["status"] not in ("running", "queued"):
                continue
            try:
                obs = client.external.observation(ep["id"])
                if obs.get("awaiting_action") and obs.get("turn"):
                    play_turn(client, ep["id"], obs["turn"]["data"], memory, use_model, log)
                    acted = True
            except ApiError as err:
                # the episode ended between the listing and the action: read the next one
                if err.status != 409:
                    raise
        run = client.runs.get(run_id)
        if run["status"] in RUN_ENDED:
            return run
        if not acted:
            time.sleep(poll_s)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", help="play this run (its profiles must use the external driver)")
    parser.add_argument("--world-version", help="start a run on this published world version")
    parser.add_argument("--profile", help="external profile id for the new run (default: create one)")
    parser.add_argument("--split", action="append", help="train, dev or holdout (repeatable)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the final run as JSON only")
    opts = parser.parse_args(argv)
    if not opts.run and not opts.world_version:
        parser.error("give --run or --world-version")

    client = Client()
    log = (lambda line: print(line, file=sys.stderr)) if opts.json else print
    run_id = opts.run
    if not run_id:
        profile = opts.profile or client.profiles.create("python-sample-agent", driver="external")["id"]
        started = client.evaluations.create(opts.world_version, [profile], splits=opts.split, repeats=opts.repeats)
        run_id = started["run_id"]
        log(f"run {run_id}: {started['episodes']} episodes")
    use_model = bool(os.environ.get("OPENAI_BASE_URL") and (os.environ.get("MODEL") or os.environ.get("OPENAI_MODEL")))
    run = play_run(client, run_id, use_model, log)
    if opts.json:
        print(json.dumps(run))
    else:
        print(f"run {run_id} {run['status']}")
        for name, entry in (run.get("summary") or {}).get("profiles", {}).items():
            print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in entry.items() if not isinstance(v, (dict, list))))
    return 0 if run["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
