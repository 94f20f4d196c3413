// The part of oidc-provider 9's API (an untyped ES module) that the test identity provider
// uses. The provider is a Koa application: use() puts a middleware before its own routes.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** the Koa context, as far as the interaction routes need it */
  export interface KoaContext {
    req: IncomingMessage;
    res: ServerResponse;
    method: string;
    path: string;
    status: number;
    body: unknown;
    type: string;
    set(field: string, value: string): void;
    get(field: string): string;
    oidc?: any;
  }

  export type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, any> };
    params: Record<string, any>;
    session?: { accountId?: string; uid?: string };
    grantId?: string;
    lastSubmission?: Record<string, any>;
  }

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export interface GrantConstructor {
    new (init: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    readonly Grant: GrantConstructor;
    /** a Node (req, res) request handler (Koa's) */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(fn: Middleware): this;
    on(event: string, listener: (...args: any[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }

  export const errors: Record<string, new (...args: any[]) => Error>;
  export default Provider;
}
