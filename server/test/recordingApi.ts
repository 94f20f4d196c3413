// A stand-in API server on 127.0.0.1 for client-side tests: it answers every request with the
// JSON `answer` returns, remembers each request, and comes with a kubeconfig (a bearer token
// user) pointing at it — for tests of what a client sends, not of what a server does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';

export interface RecordingApi {
  kc: k8s.KubeConfig;
  /** every request so far, oldest first */
  seen: http.IncomingMessage[];
  close(): Promise<void>;
}

export async function startRecordingApi(
  answer: (req: http.IncomingMessage) => unknown,
  user: { name: string; token: string } = { name: 'u', token: 't' },
): Promise<RecordingApi> {
  const seen: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req);
    req.resume();
    const body = JSON.stringify(answer(req));
    // Content-Length: client-node's fetch fails on chunked keep-alive answers ("Premature close")
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [user],
    contexts: [{ name: 'x', cluster: 'c', user: user.name }],
    currentContext: 'x',
  });
  return { kc, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}
