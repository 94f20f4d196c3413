// The test tier's OpenID Connect identity provider (see docs/oidc.md).
export { type MainConfig, type ReadyLine, parseCommandLine } from './cli.js';
export {
  type AuthorizationRequest,
  type AuthorizeOptions,
  type Authorized,
  DEFAULT_SCOPE,
  OidcError,
  OidcTestClient,
  type ProviderMetadata,
  SignInError,
  type SignedIn,
  type TokenSet,
  signIn,
} from './flow.js';
export { type ClientSpec, DEFAULT_LIFETIMES, SCOPES, type TokenLifetimes } from './provider.js';
export { type IdentityProvider, type IdentityProviderOptions, startIdentityProvider } from './server.js';
export { type SpawnedIdentityProvider, spawnIdentityProvider } from './spawn.js';
export { DEFAULT_USERS, type UserSpec } from './users.js';
