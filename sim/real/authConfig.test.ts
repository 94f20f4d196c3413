import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { realDurations } from '../controllers/runtime/durations.js';
import { authenticationConfigYaml } from './authConfig.js';
import { type FlagInputs, apiserverArgs, authenticationArgs } from './flags.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('kube-apiserver authentication configuration', () => {
  it('maps preferred_username and groups with the oidc: prefix by default', () => {
    const yaml = authenticationConfigYaml({
      jwt: [{ issuer: 'https://127.0.0.1:9443', audiences: ['palisade'], certificateAuthority: CA }],
    });
    expect(parse(yaml)).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: 'https://127.0.0.1:9443', certificateAuthority: CA, audiences: ['palisade'] },
          claimMappings: {
            username: { claim: 'preferred_username', prefix: 'oidc:' },
            groups: { claim: 'groups', prefix: 'oidc:' },
            uid: { claim: 'sub' },
          },
        },
      ],
    });
    // the PEM stays a readable block
    expect(yaml).toContain('certificateAuthority: |\n');
  });

  it('keeps an empty prefix (it must be set explicitly) and drops mappings set to null', () => {
    const config = parse(
      authenticationConfigYaml({
        jwt: [
          {
            issuer: 'https://idp.example.com/realms/ops',
            audiences: ['palisade', 'kubectl'],
            usernameClaim: 'email',
            usernamePrefix: '',
            groupsClaim: null,
            uidClaim: null,
          },
        ],
      }),
    );
    expect(config.jwt[0]).toEqual({
      issuer: { url: 'https://idp.example.com/realms/ops', audiences: ['palisade', 'kubectl'] },
      claimMappings: { username: { claim: 'email', prefix: '' } },
    });
  });

  it('passes the file to kube-apiserver only when there is one, beside the static token file', () => {
    const inputs: FlagInputs = {
      state: '/s',
      ports: { etcdClient: 1, etcdPeer: 2, apiserver: 3, controllerManager: 4 },
      durations: realDurations,
      defaultTolerationSeconds: 300,
    };
    expect(authenticationArgs(inputs)).toEqual([]);
    const withAuth = { ...inputs, authenticationConfig: '/s/authentication-config.yaml' };
    expect(authenticationArgs(withAuth)).toEqual(['--authentication-config=/s/authentication-config.yaml']);
    const all = [...apiserverArgs(withAuth), ...authenticationArgs(withAuth)];
    expect(all).toContain('--token-auth-file=/s/tokens.csv');
    expect(all.filter((a) => a.startsWith('--oidc-'))).toEqual([]);
  });
});
