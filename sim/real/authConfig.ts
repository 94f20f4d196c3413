// kube-apiserver's structured authentication configuration (--authentication-config), for a
// real control plane that trusts an OpenID Connect provider. Pure: the options in, the YAML
// out (AuthenticationConfiguration, apiserver.config.k8s.io/v1, which v1.34 accepts beside
// v1beta1 and v1alpha1). The static token file keeps working beside it; --oidc-* flags may
// not be combined with it.
import { stringify } from 'yaml';

export interface JwtAuthenticatorInput {
  /** must equal the tokens' `iss` and the discovery document's `issuer`; https only */
  issuer: string;
  /** at least one must be in the token's `aud` (an OIDC client id) */
  audiences: string[];
  /** PEM of the CA that signed the provider's serving certificate (default: the host's roots) */
  certificateAuthority?: string;
  /** default preferred_username */
  usernameClaim?: string;
  /** default 'oidc:' ('' for none) */
  usernamePrefix?: string;
  /** default groups; null for no groups mapping */
  groupsClaim?: string | null;
  /** default 'oidc:' */
  groupsPrefix?: string;
  /** default sub; null for no uid */
  uidClaim?: string | null;
}

export interface AuthenticationConfigInput {
  jwt: JwtAuthenticatorInput[];
}

export function authenticationConfig(input: AuthenticationConfigInput) {
  return {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: input.jwt.map((j) => {
      const groupsClaim = j.groupsClaim === undefined ? 'groups' : j.groupsClaim;
      const uidClaim = j.uidClaim === undefined ? 'sub' : j.uidClaim;
      return {
        issuer: {
          url: j.issuer,
          ...(j.certificateAuthority ? { certificateAuthority: j.certificateAuthority } : {}),
          audiences: j.audiences,
        },
        claimMappings: {
          // a claim needs an explicit prefix here (no defaulting, unlike --oidc-username-prefix)
          username: { claim: j.usernameClaim ?? 'preferred_username', prefix: j.usernamePrefix ?? 'oidc:' },
          ...(groupsClaim ? { groups: { claim: groupsClaim, prefix: j.groupsPrefix ?? 'oidc:' } } : {}),
          ...(uidClaim ? { uid: { claim: uidClaim } } : {}),
        },
      };
    }),
  };
}

export function authenticationConfigYaml(input: AuthenticationConfigInput): string {
  return stringify(authenticationConfig(input));
}
