// The tRPC router type the console is typed against: the server's, type-only (nothing from
// server/ reaches the browser bundle). Only ever import this file with `import type`.
export type { AppRouter } from '@/server/trpc/router';
