// The page (docs/ui.md): the session list, the preset selector and model, the conversation as cards,
// the composer with send and stop. A session's events arrive over its event stream and are folded
// by the reducer; nothing else decides what a card shows.

import { h, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { api, watchSession } from './api.js';
import { ApprovalCard, PlanCard, TodoPanel, ToolCard } from './cards.js';
import { applyEvent, emptyView, meterText } from './reducer.js';

const html = htm.bind(h);

const sessionFromHash = () => {
  const match = /^#\/s\/([A-Za-z0-9._-]+)$/.exec(location.hash);
  return match ? match[1] : undefined;
};

function App() {
  const [config, setConfig] = useState(undefined);
  const [sessions, setSessions] = useState([]);
  const [sessionId, setSessionId] = useState(sessionFromHash());
  const [view, setView] = useState(emptyView());
  const [draft, setDraft] = useState('');
  const [active, setActive] = useState(false);
  const [preset, setPreset] = useState(undefined);
  const [model, setModel] = useState('');
  const [error, setError] = useState('');
  // Plan mode for the next message (docs/plan-mode.md): follows the shown session's log, the toggle changes it.
  const [plan, setPlan] = useState(false);

  const refreshSessions = () => api.sessions().then((r) => setSessions(r.sessions), (e) => setError(e.message));

  useEffect(() => {
    api.config().then((c) => {
      setConfig(c);
      setPreset((p) => p ?? c.defaultPreset);
      setModel(c.model.label);
      if (c.plan) setPlan(true);
      if (c.model.error) setError(c.model.error);
    }, (e) => setError(e.message));
    refreshSessions();
    const onHash = () => setSessionId(sessionFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  // One stream per shown session; a new session id replaces it.
  useEffect(() => {
    setView(emptyView());
    setDraft('');
    setActive(false);
    if (sessionId === undefined) return undefined;
    let last = -1;
    return watchSession(sessionId, {
      onEvent: (index, event) => {
        if (index <= last) return; // a reconnect resends nothing new, but be sure
        last = index;
        setView((v) => applyEvent(v, event));
        if (event.type === 'llm/response') setDraft('');
        if (event.type === 'session/end') refreshSessions();
      },
      onText: (text, replace) => setDraft((d) => (replace ? text : d + text)),
      onStatus: (isActive) => {
        setActive(isActive);
        // The list's outcome column changes when a turn starts or ends.
        refreshSessions();
      },
    });
  }, [sessionId]);

  const send = async (text) => {
    setError('');
    try {
      if (sessionId === undefined) {
        const { sessionId: id } = await api.start(text, preset, model, plan);
        location.hash = `#/s/${id}`;
        refreshSessions();
      } else {
        await api.send(sessionId, text, preset, model, plan);
      }
      return true;
    } catch (e) {
      setError(e.message);
      return false;
    }
  };

  useEffect(() => {
    if (sessionId !== undefined) setPlan(view.planMode);
  }, [sessionId, view.planMode]);

  // Follow new cards and streamed text while the reader is at the bottom; leave them alone when they scrolled up.
  const bottom = useRef(null);
  const timeline = useRef(null);
  useEffect(() => {
    const box = timeline.current;
    if (box && box.scrollHeight - box.scrollTop - box.clientHeight < 200) bottom.current?.scrollIntoView({ block: 'end' });
  }, [view, draft]);

  const items = view.items;
  const byKey = new Map(items.map((item) => [item.key, item]));
  return html`<div class="layout">
    <aside class="sidebar">
      <button class="new-chat" onClick=${() => (location.hash = '')}>New chat</button>
      <h2>Sessions</h2>
      <ul class="sessions">${sessions.map(
        (s) => html`<li key=${s.id} class=${s.id === sessionId ? 'current' : ''}>
          <a href=${`#/s/${s.id}`} data-session=${s.id}>
            <span class="session-id">${s.id}</span>
            <span class="session-meta">${s.preset ?? '-'} · ${s.steps} steps · ${s.active ? 'running' : s.outcome}</span>
          </a></li>`,
      )}</ul>
    </aside>
    <main>
      <header class="top">
        <${PresetSelector} presets=${config?.presets ?? []} value=${preset} onChange=${setPreset} />
        <label class="model">model <input name="model" value=${model} onInput=${(e) => setModel(e.currentTarget.value)} /></label>
        <span class="policy" title="--approve">approvals: ${config?.approve ?? ''}</span>
        <label class="plan-toggle" title="no writes: the model investigates and ends with a plan for you to approve (docs/plan-mode.md)">
          <input type="checkbox" name="plan" checked=${plan} disabled=${active} onChange=${(e) => setPlan(e.currentTarget.checked)} /> plan mode</label>
        ${sessionId !== undefined && !active && html`<button class="compact" title="prune old tool results and summarise the oldest part now (docs/compaction.md)" onClick=${() => api.compact(sessionId, undefined, model).catch((e) => setError(e.message))}>Compact</button>`}
        ${view.meter && html`<span class="meter" title=${view.meter.reported ? "the provider's count of the latest request" : 'estimated tokens of the latest request'}>${meterText(view.meter)}</span>`}
      </header>
      ${view.todos.length > 0 && html`<${TodoPanel} todos=${view.todos} />`}
      <div class="timeline" ref=${timeline}>
        ${sessionId === undefined && html`<p class="hint">Pick a preset, then describe a task. Calls that write ask here first (--approve ${config?.approve ?? 'writes'}).</p>`}
        ${items.map((item) => html`<${Item} key=${item.key} item=${item} byKey=${byKey} live=${active}
          onAnswer=${(id, decision, reason) => api.answer(sessionId, id, decision, reason).catch((e) => setError(e.message))}
          onReview=${(id, decision, comment) => api.review(sessionId, id, decision, comment).catch((e) => setError(e.message))} />`)}
        ${draft !== '' && html`<div class="message assistant streaming">${draft}</div>`}
        ${active && view.open && html`<div class="working">working…</div>`}
        <div ref=${bottom}></div>
      </div>
      ${error && html`<div class="error-banner" role="alert">${error}</div>`}
      <${Composer} active=${active} onSend=${send} onStop=${() => api.stop(sessionId).catch((e) => setError(e.message))} />
    </main>
  </div>`;
}

function PresetSelector({ presets, value, onChange }) {
  return html`<fieldset class="presets"><legend>preset</legend>${presets.map(
    (p) => html`<label key=${p.name} class=${`preset${p.name === value ? ' selected' : ''}`} data-preset=${p.name}>
      <input type="radio" name="preset" value=${p.name} checked=${p.name === value} onChange=${() => onChange(p.name)} />
      <span class="preset-name">${p.name}</span>
      <span class="preset-description">${p.description}</span>
      ${p.origin !== 'shipped' && html`<span class="preset-origin">${p.origin}</span>`}
    </label>`,
  )}</fieldset>`;
}

function Item({ item, byKey, live, onAnswer, onReview }) {
  switch (item.kind) {
    case 'turn':
      return html`<div class="turn">${item.resumed ? 'continued' : 'started'} · ${item.preset} · ${item.model}</div>`;
    case 'user':
      return html`<div class="message user">${item.text}</div>`;
    case 'assistant':
      return html`<div class="message assistant">${item.text}</div>`;
    case 'tool':
      return html`<${ToolCard} card=${item} />`;
    case 'approval':
      return html`<${ApprovalCard} card=${item} parent=${item.parentId ? byKey.get(`tool-${item.parentId}`) : undefined} live=${live} onAnswer=${onAnswer} />`;
    case 'plan':
      return html`<${PlanCard} card=${item} live=${live} onReview=${onReview} />`;
    case 'notice':
      return html`<div class=${`notice notice-${item.tone}`}>${item.text}</div>`;
    case 'end':
      return html`<div class=${`turn-end end-${item.reason}`} data-reason=${item.reason}>turn ${item.reason}${item.error ? `: ${item.error}` : ''}</div>`;
    default:
      return null;
  }
}

function Composer({ active, onSend, onStop }) {
  const [text, setText] = useState('');
  const box = useRef(null);
  const submit = async () => {
    if (text.trim() === '' || active) return;
    if (await onSend(text)) setText('');
  };
  return html`<footer class="composer">
    <textarea ref=${box} name="message" placeholder="Describe a task (Ctrl+Enter sends)" value=${text}
      onInput=${(e) => setText(e.currentTarget.value)}
      onKeyDown=${(e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
      }}></textarea>
    ${active ? html`<button class="stop" onClick=${onStop}>Stop</button>` : html`<button class="send" onClick=${submit} disabled=${text.trim() === ''}>Send</button>`}
  </footer>`;
}

render(html`<${App} />`, document.getElementById('app'));
