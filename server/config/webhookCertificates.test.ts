import { describe, expect, it } from 'vitest';
import { parseConfig } from './load';
import {
  protectionSchema,
  serviceNames,
  sessionStoreOf,
  WEBHOOK_CONFIGURATIONS,
  webhookCertificatesOf,
} from './schema';

const webhookOf = (webhook: object) => protectionSchema.parse({ webhook }).webhook;
const H = 3_600_000;

describe('protection.webhook: service and certificates', () => {
  it('one `npm start` (no url, no service): a pair made by the process', () => {
    expect(webhookCertificatesOf(webhookOf({}))).toEqual({ mode: 'process' });
  });

  it('a Service: self-managed, the Secret beside it, the defaults', () => {
    const w = webhookOf({ service: { namespace: 'palisade', name: 'palisade-webhook' }, register: false });
    expect(w.service).toEqual({ namespace: 'palisade', name: 'palisade-webhook', port: 443 });
    expect(w.configurations).toEqual(WEBHOOK_CONFIGURATIONS);
    expect(webhookCertificatesOf(w)).toEqual({
      mode: 'self-managed',
      secret: { namespace: 'palisade', name: 'palisade-webhook-serving' },
      validity: 8760 * H,
      renewBefore: 720 * H,
      ca: { validity: 5 * 8760 * H, renewBefore: 2160 * H },
      reloadDelay: 120_000,
    });
    expect(serviceNames(w.service)).toEqual([
      'palisade-webhook.palisade.svc',
      'palisade-webhook.palisade.svc.cluster.local',
    ]);
  });

  it('a url: self-managed in kube-system as before; the old servingSecret key still names the Secret', () => {
    expect(webhookCertificatesOf(webhookOf({ url: 'https://w.example' }))).toMatchObject({
      mode: 'self-managed',
      secret: { namespace: 'kube-system', name: 'palisade-webhook-serving' },
    });
    expect(
      webhookCertificatesOf(
        webhookOf({ url: 'https://w.example', servingSecret: { namespace: 'x', name: 'y' } }),
      ),
    ).toMatchObject({ secret: { namespace: 'x', name: 'y' } });
  });

  it('cert-manager with its Secret, durations as written or in milliseconds', () => {
    const w = webhookOf({
      service: { namespace: 'p', name: 'w', port: 8443 },
      certificates: {
        mode: 'cert-manager',
        secret: { namespace: 'p', name: 'tls' },
        validity: '48h',
        renewBefore: 3_600_000,
      },
    });
    expect(webhookCertificatesOf(w)).toMatchObject({
      mode: 'cert-manager',
      secret: { namespace: 'p', name: 'tls' },
      validity: 48 * H,
      renewBefore: H,
    });
    // parsed twice (main.ts parses the file, startProtection the section): the same
    expect(protectionSchema.parse({ webhook: w }).webhook).toEqual(w);
  });

  it('a Service makes sessions shared, as a url does', () => {
    const cfg = parseConfig('f', { protection: { webhook: { service: { namespace: 'p', name: 'w' } } } });
    expect(sessionStoreOf(cfg)).toEqual({ kind: 'kubernetes', namespace: 'kube-system' });
  });

  it.each([
    [
      'an unknown mode',
      { certificates: { mode: 'vault' } },
      /protection\.webhook\.certificates\.mode: must be one of self-managed, cert-manager, got "vault"/,
    ],
    [
      'a duration that is no duration',
      { certificates: { validity: '1y' } },
      /protection\.webhook\.certificates\.validity: must be a duration like 90s, 10m or 720h, got "1y"/,
    ],
    [
      'renewBefore not less than validity',
      { certificates: { validity: '24h', renewBefore: '24h' } },
      /protection\.webhook\.certificates\.renewBefore: must be more than 0 and less than validity \(86400000 ms\)/,
    ],
    [
      'a CA renewed no earlier than the serving certificate',
      { certificates: { renewBefore: '720h', ca: { renewBefore: '700h' } } },
      /protection\.webhook\.certificates\.ca\.renewBefore: must be more than renewBefore/,
    ],
    [
      'a CA rotation window shorter than two reload delays',
      { certificates: { renewBefore: '1s', ca: { renewBefore: '3m' }, reloadDelay: '2m' } },
      /protection\.webhook\.certificates\.ca\.renewBefore: must be more than twice reloadDelay \(240000 ms\)/,
    ],
    [
      'register with cert-manager',
      { register: true, certificates: { mode: 'cert-manager' } },
      /protection\.webhook\.register: must not be true with certificates\.mode cert-manager/,
    ],
    ['a Service without a name', { service: { namespace: 'p' } }, /protection\.webhook\.service\.name: /],
    [
      'a Service port out of range',
      { service: { namespace: 'p', name: 'w', port: 0 } },
      /protection\.webhook\.service\.port: /,
    ],
    [
      'no configurations to patch',
      { configurations: [] },
      /protection\.webhook\.configurations: must name at least one configuration/,
    ],
    [
      'both servingSecret and certificates',
      { servingSecret: { namespace: 'a', name: 'b' }, certificates: {} },
      /protection\.webhook\.servingSecret: give certificates\.secret only/,
    ],
  ])('refuses %s, naming the field', (_what, webhook, message) => {
    expect(() => parseConfig('/etc/palisade.yaml', { protection: { webhook } })).toThrow(message);
  });
});
