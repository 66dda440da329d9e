/*
 * The web page of docs/evolution.md ("Web page"): plain JS, no framework.
 * Views by the URL's fragment:
 *   #/ or #/?q={text}              subjects, with a search box (filled with text)
 *   #/s/{subject}                  the subject's versions as a timeline (GET .../history)
 *   #/s/{subject}/compare/{a}/{b}  versions a and b side by side with the changes from a to b
 * Every call is a request to the REST API of the page's own origin, so the browser's Basic
 * auth (or client certificate) goes with it and the API authorizes it as any other.
 * Text from the registry is only ever set as textContent, never parsed as HTML.
 */
'use strict';

// The API's base: what precedes /ui in the page's path (a proxy may mount the registry under a prefix).
const API = location.pathname.replace(/\/ui(\/.*)?$/, '');

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

async function api(path) {
  // From the origin, not relative to the page's URL: a page opened as http://user:pw@host/ui/ would
  // resolve to a URL with credentials, which fetch refuses; the browser sends the ones it has.
  const r = await fetch(location.origin + API + path, { headers: { Accept: 'application/vnd.schemaregistry.v1+json' } });
  const body = await r.json().catch(() => null);
  if (!r.ok) {
    const msg = body && body.message ? body.message : r.statusText;
    throw new Error(r.status + (body && body.error_code ? ' (' + body.error_code + ')' : '') + ': ' + msg);
  }
  return body;
}

const enc = encodeURIComponent;
const view = () => document.getElementById('view');

function show(...nodes) {
  view().replaceChildren(...nodes);
}

function crumbs(subject) {
  const c = document.getElementById('crumbs');
  c.replaceChildren();
  if (subject !== undefined) c.append(' / ', el('a', { href: '#/s/' + enc(subject), text: subject }));
}

function fail(e) {
  show(el('p', { class: 'error', id: 'error', text: String(e.message || e) }));
}

// ---- Subjects -----------------------------------------------------------

// q: the search box's first text (#/?q=...), so a filtered list can be linked.
async function subjectsView(q) {
  crumbs();
  const subjects = await api('/subjects');
  const box = el('input', { type: 'search', id: 'search', placeholder: 'Search subjects', autofocus: '' });
  box.value = q || '';
  const list = el('ul', { class: 'subjects', id: 'subjects' });
  const render = () => {
    const q = box.value.toLowerCase();
    list.replaceChildren(
      ...subjects
        .filter((s) => s.toLowerCase().includes(q))
        .map((s) => el('li', {}, el('a', { href: '#/s/' + enc(s), class: 'subject', text: s }))),
    );
    if (!list.children.length) list.append(el('li', { class: 'muted', text: 'No subject matches.' }));
  };
  box.addEventListener('input', render);
  render();
  show(el('h2', { text: 'Subjects (' + subjects.length + ')' }), box, list);
}

// ---- Timeline -----------------------------------------------------------

async function timelineView(subject) {
  crumbs(subject);
  const [history, config] = await Promise.all([
    api('/subjects/' + enc(subject) + '/history'),
    api('/config/' + enc(subject) + '?defaultToGlobal=true'),
  ]);
  const versions = history.versions.filter((v) => !v.deleted).map((v) => v.version);
  const rows = history.versions.map((v) =>
    el(
      'tr',
      { class: 'version', 'data-version': String(v.version) },
      el('td', {}, el('a', { href: '#/s/' + enc(subject) + '/compare/' + (versions[0] || v.version) + '/' + v.version, text: 'v' + v.version })),
      el('td', { text: String(v.id) }),
      el('td', { text: v.time || '' }),
      el('td', { text: v.principal || '' }),
      el('td', { class: 'summary', text: (v.deleted ? '[deleted] ' : '') + (v.summary || '') }),
    ),
  );
  const table = el(
    'table',
    { id: 'timeline' },
    el('tr', {}, ...['version', 'id', 'time', 'principal', 'summary'].map((h) => el('th', { text: h }))),
    ...rows,
  );
  show(
    el('h2', { text: subject }),
    el('p', { id: 'level', text: 'Compatibility level: ' + config.compatibilityLevel }),
    comparePicker(subject, versions, versions[0], versions[versions.length - 1]),
    table,
  );
}

function comparePicker(subject, versions, a, b) {
  const sel = (id, cur) =>
    el('select', { id }, ...versions.map((v) => {
      const o = el('option', { value: String(v), text: 'v' + v });
      if (v === cur) o.selected = true;
      return o;
    }));
  const from = sel('from', a);
  const to = sel('to', b);
  const go = el('button', { id: 'compare', text: 'Compare' });
  go.addEventListener('click', () => {
    location.hash = '#/s/' + enc(subject) + '/compare/' + from.value + '/' + to.value;
  });
  return el('div', { class: 'pick' }, 'Compare ', from, ' with ', to, ' ', go);
}

// ---- Side by side -------------------------------------------------------

function pretty(v) {
  if (!v.schemaType || v.schemaType === 'AVRO' || v.schemaType === 'JSON') {
    try {
      return JSON.stringify(JSON.parse(v.schema), null, 2);
    } catch (e) {
      /* not JSON: shown as stored */
    }
  }
  return v.schema;
}

function side(v, level) {
  const refs = v.references && v.references.length
    ? el('ul', { class: 'refs', id: 'refs-' + v.version }, ...v.references.map((r) =>
      el('li', {}, el('a', { href: '#/s/' + enc(r.subject), text: r.name + ' → ' + r.subject + ' v' + r.version }))))
    : el('p', { class: 'refs muted', id: 'refs-' + v.version, text: 'No references.' });
  return el(
    'div',
    { class: 'side', 'data-version': String(v.version) },
    el('h3', { text: 'v' + v.version }),
    el('div', { class: 'ids', id: 'ids-' + v.version, text: 'id ' + v.id + ' · ' + (v.schemaType || 'AVRO') + ' · level ' + level }),
    el('h4', { text: 'References' }),
    refs,
    el('pre', { text: pretty(v) }),
  );
}

function yesNo(name, ok) {
  return el('span', { class: 'label ' + (ok ? 'yes' : 'no'), text: name + (ok ? ' ok' : ' breaks') });
}

async function compareView(subject, a, b) {
  crumbs(subject);
  const s = '/subjects/' + enc(subject);
  const [va, vb, config, history] = await Promise.all([
    api(s + '/versions/' + enc(a)),
    api(s + '/versions/' + enc(b)),
    api('/config/' + enc(subject) + '?defaultToGlobal=true'),
    api(s + '/history'),
  ]);
  const versions = history.versions.filter((v) => !v.deleted).map((v) => v.version);
  let body;
  if (String(a) === String(b)) {
    body = el('p', { class: 'muted', id: 'summary', text: 'The same version: no changes.' });
  } else {
    const ch = await api(s + '/versions/' + enc(b) + '/changes?from=' + enc(a));
    const rows = ch.changes.map((c) => {
      const cls = c.forward && c.backward ? 'ok' : c.backward ? 'bwd' : c.forward ? 'fwd' : 'bad';
      return el(
        'tr',
        { class: 'change ' + cls, 'data-kind': c.kind, 'data-path': c.path },
        el('td', {}, el('span', { class: 'label kind', text: c.kind })),
        el('td', { class: 'path', text: c.path }),
        el('td', { text: c.oldType === null ? '' : c.oldType }),
        el('td', { text: c.newType === null ? '' : c.newType }),
        el('td', { class: 'direction' }, yesNo('forward', c.forward), yesNo('backward', c.backward)),
        el('td', { text: c.detail === null ? '' : c.detail }),
      );
    });
    body = el(
      'div',
      { class: 'changes' },
      el('p', { id: 'summary', text: 'v' + ch.from + ' → v' + ch.version + ': ' + ch.summary }),
      el(
        'table',
        { id: 'changes' },
        el('tr', {}, ...['kind', 'column', 'old type', 'new type', 'readers', 'detail'].map((h) => el('th', { text: h }))),
        ...rows,
      ),
    );
  }
  show(
    el('h2', { text: subject + ': v' + a + ' and v' + b }),
    el('p', { id: 'level', text: 'Compatibility level: ' + config.compatibilityLevel }),
    comparePicker(subject, versions, Number(a), Number(b)),
    body,
    el('div', { class: 'sides' }, side(va, config.compatibilityLevel), side(vb, config.compatibilityLevel)),
  );
}

// ---- Routing ------------------------------------------------------------

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  let p;
  if (parts[0] === 's' && parts.length === 2) p = timelineView(parts[1]);
  else if (parts[0] === 's' && parts.length === 5 && parts[2] === 'compare') p = compareView(parts[1], parts[3], parts[4]);
  else {
    const q = /^#\/?\?q=(.*)$/.exec(location.hash);
    p = subjectsView(q ? decodeURIComponent(q[1]) : '');
  }
  p.then(() => document.body.setAttribute('data-ready', location.hash || '#/'), fail);
}

window.addEventListener('hashchange', route);
route();
