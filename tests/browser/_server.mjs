// A tiny static file server for dist/ on 127.0.0.1 (no dependencies), used by the browser tests.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.txt': 'text/plain; charset=utf-8', '.log': 'application/octet-stream', '.zip': 'application/zip',
};

/** cors: every answer allows any origin (a bundle embedded by pages of other origins). */
export async function startServer(rootDir, extra = {}, { cors = false } = {}) {
  const root = resolve(rootDir);
  const server = createServer(async (req, res) => {
    if (cors) res.setHeader('access-control-allow-origin', '*');
    try {
      const url = new URL(req.url, 'http://x');
      const p = decodeURIComponent(url.pathname);
      if (extra[p]) {
        const [type, body] = extra[p];
        res.writeHead(200, { 'content-type': type });
        res.end(body);
        return;
      }
      let file = normalize(join(root, p));
      if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
      const st = await stat(file).catch(() => null);
      if (st?.isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  // close() also drops the browser's open connections (keep-alive, or a preconnected socket that
  // never sent a request): server.close() alone waits for them, which once hung a test for minutes.
  const close = () => new Promise((r) => { server.close(() => r()); server.closeAllConnections(); });
  return { url: `http://127.0.0.1:${port}/`, close };
}
