// The HTTPS front door: authentication and authorization, discovery, health and resource routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthServices } from '../auth/index.js';
import { ImpersonationError } from '../auth/impersonation.js';
import type { ApiCore } from '../core/api.js';
import { apiGroup, apiGroupList, apiVersions, resourceList, serverVersion } from './discovery.js';
import { openApiJson, openApiProtobuf } from './openapi.js';
import { StatusError, errors } from './errors.js';
import { handleResource } from './handlers.js';
import { sendError, sendJson } from './request.js';
import { parseResourcePath } from './routes.js';
import type { WatchTiming } from './watch.js';

export interface FrontDoor {
  core: ApiCore;
  auth: AuthServices;
  timing: WatchTiming;
  serverAddress: () => string;
}

function discovery(d: FrontDoor, segments: string[]): unknown {
  const reg = d.core.registry;
  if (segments.length === 1 && segments[0] === 'api') return apiVersions(d.serverAddress());
  if (segments.length === 1 && segments[0] === 'apis') return apiGroupList(reg);
  if (segments.length === 2 && segments[0] === 'api') return resourceList(reg, '', segments[1]);
  if (segments.length === 2 && segments[0] === 'apis') return apiGroup(reg, segments[1]);
  if (segments.length === 3 && segments[0] === 'apis') return resourceList(reg, segments[1], segments[2]);
  return null;
}

export function requestHandler(d: FrontDoor) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const decoded = decodePath(url.pathname);
      const path = decoded.replace(/\/+$/, '') || '/';
      const user = d.auth.admit(req, decoded, path, url.searchParams);
      if (path === '/version') return sendJson(res, 200, serverVersion);
      if (path === '/healthz' || path === '/livez' || path === '/readyz') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('ok');
      }
      if (path === '/openapi/v2') return sendOpenApi(d, req, res);
      const segments = path.split('/').filter(Boolean);
      const doc = discovery(d, segments);
      if (doc !== null) {
        if (req.method !== 'GET') throw errors.methodNotAllowed();
        if (doc === undefined) throw errors.pathNotFound();
        return sendJson(res, 200, doc);
      }
      const route = parseResourcePath(d.core.registry, segments);
      if (!route) throw errors.pathNotFound();
      await handleResource({
        core: d.core,
        req,
        res,
        query: url.searchParams,
        user,
        route,
        timing: d.timing,
        auth: d.auth,
      });
    } catch (e) {
      if (e instanceof ImpersonationError) return internalErrorText(req, res, e.message);
      if (!(e instanceof StatusError) && !res.headersSent && process.env.PALISADE_DEBUG) console.error(e);
      sendError(res, e);
    }
  };
}

/** the URL path as Go's URL.Path holds it: percent-escapes decoded (a bad one is kept as sent) */
function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/** responsewriters.InternalError: plain text, as kube-apiserver's impersonation filter answers */
function internalErrorText(req: IncomingMessage, res: ServerResponse, message: string) {
  const text = `Internal Server Error: ${JSON.stringify(req.url ?? '/')}: ${message}`
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  res.writeHead(500, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache, private',
  });
  res.end(`${text}\n`);
}

function sendOpenApi(d: FrontDoor, req: IncomingMessage, res: ServerResponse) {
  const resources = d.core.registry.all();
  if ((req.headers.accept ?? '').includes('protobuf')) {
    res.writeHead(200, { 'content-type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf' });
    return res.end(openApiProtobuf(resources));
  }
  sendJson(res, 200, openApiJson(resources));
}
