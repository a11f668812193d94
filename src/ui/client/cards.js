// The cards (docs/ui.md, "Cards"): a native tool call, a run_code program with its sub-calls and
// their waterfall, an approval. Each renders one item of the reducer's view and nothing else.

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import htm from 'htm';
import hljs from 'highlight.js/core';
import typescript from 'highlight.js/typescript';
import { changeDiff } from './change-diff.js';
import { programPosition, waterfall } from './reducer.js';

const html = htm.bind(h);
hljs.registerLanguage('typescript', typescript);

const json = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const compact = (value) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};
const duration = (ms) => (ms === undefined ? '' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`);

function Status({ status, error }) {
  const label = status === 'running' ? 'running' : status === 'ok' ? 'ok' : (error?.code ?? 'error');
  return html`<span class=${`badge badge-${status}`}>${label}</span>`;
}

/** TypeScript with highlight.js (its output escapes the text); the failing line marked. */
export function Program({ code, failedLine }) {
  const lines = useMemo(() => splitHighlighted(hljs.highlight(code, { language: 'typescript' }).value), [code]);
  return html`<pre class="program"><code class="hljs language-typescript">${lines.map(
    (line, i) =>
      html`<span class=${`line${failedLine === i + 1 ? ' line-failed' : ''}`} data-line=${i + 1} dangerouslySetInnerHTML=${{ __html: line === '' ? ' ' : line }}></span>`,
  )}</code></pre>`;
}

/**
 * highlight.js markup cut into lines, each with balanced tags: a span open across a line break (a
 * multi-line comment or string) is closed at the end of the line and reopened on the next. Its
 * output holds only `<span class="...">` and `</span>` tags; the text is escaped.
 */
export function splitHighlighted(markup) {
  const open = [];
  return markup.split('\n').map((line) => {
    const prefix = open.join('');
    for (const tag of line.match(/<span[^>]*>|<\/span>/g) ?? []) {
      if (tag === '</span>') open.pop();
      else open.push(tag);
    }
    return prefix + line + '</span>'.repeat(open.length);
  });
}

/** The diff of a write or edit call (change-diff.js); nothing for other calls. Text only: Preact escapes it. */
export function ChangeDiff({ tool, args, result }) {
  const diff = changeDiff(tool, args, result);
  if (diff === undefined) return null;
  return html`<div class="diff" data-diff=${diff.path}>
    <div class="diff-head">${diff.path}${diff.note ? html` <span class="diff-note">(${diff.note})</span>` : ''}</div>
    <pre>${diff.lines.map((l) => html`<span class=${`diff-line diff-${l.sign === '+' ? 'add' : l.sign === '-' ? 'del' : 'same'}`}>${l.sign}${l.text}</span>`)}</pre>
  </div>`;
}

export function ToolCard({ card }) {
  return card.name === 'run_code' ? html`<${RunCodeCard} card=${card} />` : html`<${NativeCard} card=${card} />`;
}

function NativeCard({ card }) {
  const ms = card.end !== undefined ? card.end - card.start : undefined;
  return html`<section class="card card-tool" data-card="tool" data-tool=${card.name} data-status=${card.status}>
    <header><span class="tool-name">${card.name}</span><${Status} status=${card.status} error=${card.error} /><span class="time">${duration(ms)}</span></header>
    <${ChangeDiff} tool=${card.name} args=${card.args} result=${card.content} />
    <details open=${card.status !== 'ok'}><summary>arguments</summary><pre class="args">${json(card.args)}</pre></details>
    ${card.content !== undefined && html`<pre class=${`result${card.status === 'error' ? ' result-error' : ''}`}>${card.content}</pre>`}
  </section>`;
}

/** The time now, ticking while `running`, so a running card's waterfall grows. */
function useNow(running) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

function RunCodeCard({ card }) {
  const ms = card.end !== undefined ? card.end - card.start : undefined;
  const position = card.error ? programPosition(card.error.message) : undefined;
  const now = useNow(card.end === undefined);
  const bars = waterfall(card, card.end === undefined ? now : undefined);
  return html`<section class="card card-run-code" data-card="run_code" data-status=${card.status}>
    <header>
      <span class="title">${card.description ?? 'run_code'}</span>
      <${Status} status=${card.status} error=${card.error} />
      <span class="time">${duration(ms)}</span>
      <span class="count">${card.subCalls.length} sub-call${card.subCalls.length === 1 ? '' : 's'}</span>
    </header>
    ${card.program !== undefined ? html`<${Program} code=${card.program} failedLine=${position?.line} />` : html`<pre class="args">${json(card.args)}</pre>`}
    ${card.subCalls.length > 0 &&
    html`<table class="subcalls">
      <thead><tr><th>tool</th><th>arguments</th><th>time</th><th class="waterfall-head">timeline</th></tr></thead>
      <tbody>${card.subCalls.map((s, i) => html`<${SubCallRow} key=${s.id} sub=${s} bar=${bars[i]} />`)}</tbody>
    </table>`}
    ${card.error &&
    html`<div class="failure" data-code=${card.error.code}>
      <strong>${card.error.code}</strong>${position ? html` at line ${position.line}:${position.column}` : ''}
    </div>`}
    ${card.content !== undefined &&
    html`<div class="output"><div class="label">${card.status === 'error' ? 'error and logs' : 'logs and result'}</div>
      <pre class=${`result${card.status === 'error' ? ' result-error' : ''}`}>${card.content}</pre></div>`}
  </section>`;
}

function SubCallRow({ sub, bar }) {
  const [open, setOpen] = useState(false);
  const status = sub.end === undefined ? 'running' : sub.isError ? 'error' : 'ok';
  return html`<tr class=${`subcall subcall-${status}`} data-subcall=${sub.tool} onClick=${() => setOpen(!open)}>
      <td class="tool-name">${sub.tool}</td>
      <td class="args">${compact(sub.args)}</td>
      <td class="time">${status === 'running' ? '…' : duration(bar?.ms)}</td>
      <td class="waterfall"><div class="track"><div class=${`bar bar-${status}`} style=${{ left: `${bar?.left ?? 0}%`, width: `${bar?.width ?? 0}%` }}></div></div></td>
    </tr>
    ${open && sub.content !== undefined && html`<tr class="subcall-detail"><td colspan="4"><${ChangeDiff} tool=${sub.tool} args=${sub.args} result=${sub.content} /><pre>${sub.content}</pre></td></tr>`}`;
}

/** A call that waits for a person (or the record of the answer): allow once, allow the tool, deny with a reason. */
export function ApprovalCard({ card, parent, live, onAnswer }) {
  const [reason, setReason] = useState('');
  const [sending, setSending] = useState(false);
  const waiting = card.decision === undefined;
  const answer = async (decision) => {
    setSending(true);
    try {
      await onAnswer(card.id, decision, decision === 'deny' ? reason : undefined);
    } finally {
      setSending(false);
    }
  };
  return html`<section class=${`card card-approval${waiting ? ' waiting' : ''}`} data-card="approval" data-tool=${card.tool} data-decision=${card.decision ?? 'waiting'}>
    <header><span class="title">${waiting ? 'Approve' : 'Approval'}: <span class="tool-name">${card.tool}</span></span>
      ${!waiting && html`<span class=${`badge badge-${card.decision === 'deny' ? 'error' : 'ok'}`}>${card.decision}${card.by ? ` (${card.by})` : ''}</span>`}</header>
    ${parent && html`<div class="parent">from the program <em>${parent.description ?? parent.id}</em></div>`}
    ${card.args !== null && card.args !== undefined && html`<pre class="args">${json(card.args)}</pre>`}
    ${card.args !== null && card.args !== undefined && html`<${ChangeDiff} tool=${card.tool} args=${card.args} />`}
    ${parent?.program !== undefined && html`<details><summary>the program</summary><${Program} code=${parent.program} /></details>`}
    ${card.reason && html`<div class="reason">${card.reason}</div>`}
    ${waiting &&
    (live
      ? html`<div class="actions">
          <button class="allow" disabled=${sending} onClick=${() => answer('allow')}>Allow once</button>
          <button class="allow-tool" disabled=${sending} onClick=${() => answer('allow-tool')}>Allow ${card.tool} for this session</button>
          ${card.alwaysAllow && html`<button class="allow-always" disabled=${sending} onClick=${() => answer('allow-always')}>Always allow <code>${card.alwaysAllow}</code></button>`}
          <input class="deny-reason" placeholder="reason (the model sees it)" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
          <button class="deny" disabled=${sending} onClick=${() => answer('deny')}>Deny</button>
        </div>`
      : html`<div class="reason">no answer was given (the turn ended)</div>`)}
  </section>`;
}

/** A proposed plan (docs/plan-mode.md): its markdown and steps, and while it waits, approve or send back with a comment. */
export function PlanCard({ card, live, onReview }) {
  const [comment, setComment] = useState('');
  const [sending, setSending] = useState(false);
  const waiting = card.decision === undefined && card.error === undefined;
  const review = async (decision) => {
    setSending(true);
    try {
      await onReview(card.id, decision, decision === 'send-back' ? comment : undefined);
    } finally {
      setSending(false);
    }
  };
  return html`<section class=${`card card-plan${waiting ? ' waiting' : ''}`} data-card="plan" data-decision=${card.decision ?? (card.error ? 'invalid' : 'waiting')}>
    <header><span class="title">Proposed plan</span>
      ${card.decision && html`<span class=${`badge badge-${card.decision === 'approved' ? 'ok' : 'error'}`}>${card.decision}</span>`}</header>
    <pre class="plan-markdown">${card.markdown}</pre>
    <ol class="plan-steps">${card.steps.map((step, i) => html`<li key=${i}>${step}</li>`)}</ol>
    ${card.comment && html`<div class="reason">sent back: ${card.comment}</div>`}
    ${card.error && html`<div class="reason">${card.error}</div>`}
    ${waiting &&
    (live
      ? html`<div class="actions">
          <button class="approve-plan" disabled=${sending} onClick=${() => review('approve')}>Approve and start</button>
          <input class="plan-comment" placeholder="what to change (the model reads it)" value=${comment} onInput=${(e) => setComment(e.currentTarget.value)} />
          <button class="send-back" disabled=${sending} onClick=${() => review('send-back')}>Send back</button>
        </div>`
      : html`<div class="reason">no review was given (the turn ended)</div>`)}
  </section>`;
}

/** The todo list as last set (a todo call, or an approved plan's steps). */
export function TodoPanel({ todos }) {
  const marks = { completed: '✓', in_progress: '▸', pending: '○' };
  return html`<section class="todo-panel" data-panel="todo">
    <h2>Todo ${todos.filter((t) => t.status === 'completed').length}/${todos.length}</h2>
    <ul>${todos.map((t, i) => html`<li key=${i} class=${`todo todo-${t.status}`} data-status=${t.status}>${marks[t.status] ?? '○'} ${t.content}</li>`)}</ul>
  </section>`;
}
