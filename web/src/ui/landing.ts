// The landing page and the ways a history arrives: files, a folder, a zip, drag and drop,
// paste, the textbook examples. It hands every input to the app through `InputSources`.
import { FORMATS } from '../model/formats';
import { filesFromDataTransfer, filesFromList, fromText, InputError } from '../load/input';
import type { InFile } from '../worker/protocol';
import { clear, h } from '../dom/dom';
import { icon } from '../dom/icons';

/** Where the landing page sends what the user gives it. */
export interface InputSources {
  /** address: the query that reopens this input after a reload ("?example=x.json"), if any */
  load(get: () => Promise<InFile[]>, format?: string, address?: string): void;
}

/** A format picker: the core's formats, after a first option with an empty value. */
export function formatSelect(first: string, selected = ''): HTMLSelectElement {
  return h('select', { 'aria-label': 'Format' }, h('option', { value: '' }, first),
    FORMATS.map((f) => h('option', { value: f.name, selected: f.name === selected }, `${f.name} \u2014 ${f.title}`))) as HTMLSelectElement;
}

/** An example of the gallery: a file, or a folder (`files`), in `format`. */
interface ExampleInfo {
  file: string; title: string; note?: string; expect?: Record<string, string>; format?: string; files?: string[];
  /** a history `isoscope run` recorded from a real database (scripts/copy-examples.mjs) */
  recorded?: { database: string; version: string; isolation: string; command: string };
  /** Hermitage's table of a real database, by `isoscope hermitage --json` (scripts/copy-examples.mjs) */
  hermitage?: { database: string; version: string; command: string };
}

/** The files of a bundled example (a folder example has several), fetched from ./examples/. */
export async function exampleFiles(name: string): Promise<InFile[]> {
  if (!/^[\w][\w.-]*$/.test(name)) throw new InputError(`no example named ${name}`);
  let files = [name];
  if (!name.includes('.')) {
    const res = await fetch('./examples/index.json');
    const ex = res.ok ? ((await res.json()) as ExampleInfo[]).find((e) => e.file === name) : undefined;
    if (!ex?.files) throw new InputError(`no example named ${name}`);
    files = ex.files;
  }
  return Promise.all(files.map(async (f) => {
    const res = await fetch(`./examples/${f.split('/').map(encodeURIComponent).join('/')}`);
    if (!res.ok) throw new InputError(`could not fetch example ${f}: HTTP ${res.status}`);
    return { name: f, data: await res.arrayBuffer() };
  }));
}

/** Builds the landing page into main; returns the slot where load errors go. */
export function renderLanding(main: HTMLElement, sources: InputSources): HTMLElement {
  clear(main);
  const pick = h('input', { type: 'file', multiple: true, class: 'sr-only', id: 'file-input', tabindex: -1, 'aria-hidden': 'true' }) as HTMLInputElement;
  const pickDir = h('input', { type: 'file', class: 'sr-only', id: 'dir-input', tabindex: -1, 'aria-hidden': 'true' }) as HTMLInputElement;
  pickDir.setAttribute('webkitdirectory', '');
  pick.addEventListener('change', () => pick.files?.length && sources.load(() => filesFromList(pick.files!)));
  pickDir.addEventListener('change', () => pickDir.files?.length && sources.load(() => filesFromList(pickDir.files!)));
  const b1 = h('button', { class: 'btn primary', type: 'button' }, icon('upload'), 'Choose files');
  b1.addEventListener('click', () => pick.click());
  const b2 = h('button', { class: 'btn', type: 'button' }, icon('folder'), 'Choose folder');
  b2.addEventListener('click', () => pickDir.click());
  const b3 = h('button', { class: 'btn', type: 'button', id: 'paste-open' }, icon('paste'), 'Paste text');
  b3.addEventListener('click', () => pasteDialog(sources));
  const drop = h('section', { class: 'drop', id: 'dropzone', 'aria-label': 'Load a history' },
    h('div', { class: 'drop-icon', 'aria-hidden': 'true' }, icon('upload')),
    h('h1', {}, 'Check a transaction history against every isolation level'),
    h('p', {}, 'Drop a history file, several files, a folder of Cobra logs or a .zip anywhere on this page. The format is detected automatically; nothing is uploaded.'),
    h('div', { class: 'actions' }, b1, b2, b3, pick, pickDir),
    h('div', { class: 'formats', 'aria-label': 'Supported formats' }, h('span', { class: 'formats-label' }, 'Formats'), FORMATS.map((f) => h('span', { class: 'chip', title: f.title }, f.name))),
    h('p', { class: 'hint' }, 'Tip: press ', h('kbd', {}, 'Ctrl'), '+', h('kbd', {}, 'V'), ' anywhere to check a history from the clipboard.'),
    h('p', { class: 'hint docs', id: 'docs-links' }, 'Reference: ',
      h('a', { href: './docs/formats.md#semantics-shared-by-every-checker' }, 'the levels'), ' \u00b7 ',
      h('a', { href: './docs/formats.md' }, 'the formats'), ' \u00b7 ',
      h('a', { href: './docs/cli.md' }, 'the command line'), ' \u00b7 ',
      h('a', { href: './docs/wasm-api.md' }, 'the WebAssembly API'), ' \u00b7 ',
      h('a', { href: './embed/' }, 'embedding')));
  const errorSlot = h('div', { id: 'error-slot' });
  const gallery = h('section', { class: 'card gallery', 'aria-labelledby': 'ex-title' },
    h('h2', { id: 'ex-title' }, 'Examples'),
    h('p', { class: 'sub' }, 'One small history per named anomaly, with the verdicts known from a brute-force checker; histories and Hermitage\u2019s tables recorded from real databases; then one history in each format other tools write.'),
    h('div', { class: 'examples', id: 'examples' }, h('div', { class: 'loading muted' }, h('div', { class: 'spinner' }), 'Loading examples\u2026')));
  main.append(errorSlot, h('div', { class: 'hero' }, drop, gallery));
  void fillGallery(sources);
  return errorSlot;
}

async function fillGallery(sources: InputSources) {
  const box = document.getElementById('examples');
  if (!box) return;
  try {
    const res = await fetch('./examples/index.json');
    if (!res.ok) throw new Error(String(res.status));
    const list = (await res.json()) as ExampleInfo[];
    clear(box);
    for (const ex of list) {
      const exp = Object.entries(ex.expect ?? {});
      const rec = ex.recorded;
      const table = ex.hermitage;
      const b = h('button', { class: 'example', type: 'button', 'data-example': ex.file, title: rec || table ? ex.note ?? null : null },
        h('strong', {}, ex.title), ex.format && ex.format !== 'isoscope' ? h('span', { class: 'chip' }, ex.format) : null,
        rec ? h('span', { class: 'muted recorded' }, `${rec.database} ${rec.version}, ${rec.isolation}: ${rec.command}`) : null,
        table ? h('span', { class: 'muted recorded' }, `${table.database} ${table.version}, every level: ${table.command}`) : null,
        h('span', { class: 'exp' }, exp.map(([l, v]) => h('span', { class: `mini ${v}` }, l))));
      b.addEventListener('click', () => openExample(ex, sources));
      box.append(b);
    }
  } catch {
    clear(box);
    box.append(h('p', { class: 'muted' }, 'The examples are not available in this build.'));
  }
}

function openExample(ex: ExampleInfo, sources: InputSources) {
  sources.load(() => exampleFiles(ex.file), '', `?example=${encodeURIComponent(ex.file)}`);
}

export function pasteDialog(sources: InputSources) {
  const ta = h('textarea', { 'aria-label': 'History text', placeholder: '{"format": "isoscope/1", "sessions": [...]}\n\nor plume text, dbcop text, Elle EDN, AWDIT text\u2026', spellcheck: 'false' }) as HTMLTextAreaElement;
  const sel = formatSelect('Detect format');
  const cancel = h('button', { class: 'btn', type: 'button', value: 'cancel' }, 'Cancel');
  const ok = h('button', { class: 'btn primary', type: 'submit', value: 'ok', id: 'paste-load' }, 'Check');
  const dlg = h('dialog', { 'aria-label': 'Paste a history' }, h('form', { method: 'dialog' }, h('h2', {}, 'Paste a history'), ta, h('div', { class: 'row' }, sel, cancel, ok))) as HTMLDialogElement;
  cancel.addEventListener('click', () => dlg.close());
  dlg.addEventListener('close', () => {
    if (dlg.returnValue === 'ok' && ta.value.trim()) sources.load(async () => fromText(ta.value), sel.value);
    dlg.remove();
  });
  document.body.append(dlg);
  dlg.showModal();
  ta.focus();
}

/** Drop anywhere on the page, or paste outside a text field, loads a history. */
export function installDropAndPaste(sources: InputSources) {
  let depth = 0;
  const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].some((t) => t === 'Files' || t === 'text/plain');
  window.addEventListener('dragenter', (e) => { if (!hasFiles(e)) return; e.preventDefault(); depth++; document.body.classList.add('dragging'); });
  window.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) document.body.classList.remove('dragging'); });
  window.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer!.dropEffect = 'copy'; } });
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    document.body.classList.remove('dragging');
    const dt = e.dataTransfer;
    if (dt) sources.load(() => filesFromDataTransfer(dt));
  });
  document.addEventListener('paste', (e) => {
    const t = e.target as HTMLElement;
    if (t.closest('textarea, input, [contenteditable]')) return;
    const text = e.clipboardData?.getData('text/plain');
    if (text && text.trim().length > 2) { e.preventDefault(); sources.load(async () => fromText(text)); }
  });
}
