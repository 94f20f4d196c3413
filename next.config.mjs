import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // served by server/main.ts (custom server: Next handler + tRPC + socket.io on one port)
  devIndicators: false,
  turbopack: { root },
  outputFileTracingRoot: root,
};

export default nextConfig;
