// The console server's configuration file (palisade.yaml): which contexts to show and the
// mode each cluster runs in. Modes exist because production operators legitimately hold
// write permission: "read-only" makes Palisade refuse every change to that cluster,
// "protected" makes every change name its target again before it runs.
import { z } from 'zod';
import { trustedProxies } from '../../lib/auth/clientAddress.js';
import { durationSchema } from '../../lib/duration.js';
import { DEFAULT_RETENTION, retentionSchema } from '../../lib/history/retention.js';
import { judgeAgentParameters, problemText } from '../../lib/fenceAgents/policy.js';
import { fencePolicySpec } from '../../lib/fencing/types.js';

import type { ClusterMode } from '../../lib/console/actionGuard.js';

export type { ClusterMode };
export const CLUSTER_MODES = ['normal', 'read-only', 'protected'] as const satisfies readonly ClusterMode[];

const mode = z.enum(CLUSTER_MODES, {
  error: (i) => `must be one of ${CLUSTER_MODES.join(', ')}, got ${JSON.stringify(i.input)}`,
});

const clusterEntry = z.strictObject({
  /** the kubeconfig context */
  context: z.string().min(1, 'must not be empty'),
  /** normal; read-only: Palisade refuses every change; protected: every change names its target again */
  mode: mode.default('normal'),
});

const cellEntry = z.strictObject({
  /** the cell ID: the last segment of the webhook URL and the key of status.cells[] */
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, ".", "_" or "-"'),
  /** the kubeconfig context of the cluster whose pods this cell counts and guards */
  context: z.string().min(1, 'must not be empty'),
});

const dnsName = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'must be a lower-case DNS name (letters, digits, "-" and ".")',
  )
  .max(253, 'must be at most 253 characters');

/**
 * A duration as written ("90s", "720h") or in milliseconds: protection's section is parsed again
 * by startProtection, which main.ts hands the file's parsed config.
 */
const durationMs = z.union([z.number().int().min(0), durationSchema], {
  error: (i) => `must be a duration like 90s, 10m or 720h, got ${JSON.stringify(i.input)}`,
});

const secretRef = z.strictObject({ namespace: dnsName, name: dnsName });

/** The webhook configurations Palisade registers (or, with register: false, patches caBundle of). */
export const WEBHOOK_CONFIGURATIONS = [
  'podseidon.kubewharf.io',
  'palisade-nodefences',
  'palisade-leader-epochs',
];

export const CERTIFICATE_MODES = ['self-managed', 'cert-manager'] as const;

/** The defaults of protection.webhook.certificates (durations in milliseconds). */
export const CERTIFICATE_DEFAULTS = {
  validity: 8760 * 3_600_000,
  renewBefore: 720 * 3_600_000,
  ca: { validity: 5 * 8760 * 3_600_000, renewBefore: 2160 * 3_600_000 },
  reloadDelay: 2 * 60_000,
};

/**
 * The webhook's serving certificate when replicas serve it (protection.webhook.url or service):
 * self-managed (Palisade's leader keeps a CA and serving certificate in the Secret and the CA in
 * every webhook configuration's caBundle, rotating both before they expire) or cert-manager (it
 * writes the Secret, its cainjector the caBundle; Palisade only serves what the Secret holds).
 */
const certificatesSchema = z
  .strictObject({
    /** default self-managed whenever url or service is set (else a pair made at start, per process) */
    mode: z
      .enum(CERTIFICATE_MODES, {
        error: (i) => `must be one of ${CERTIFICATE_MODES.join(', ')}, got ${JSON.stringify(i.input)}`,
      })
      .optional(),
    /** keys ca.crt, tls.crt, tls.key (default <service namespace or kube-system>/palisade-webhook-serving) */
    secret: secretRef.optional(),
    /** self-managed: the serving certificate's lifetime */
    validity: durationMs.default(CERTIFICATE_DEFAULTS.validity),
    /** self-managed: reissue the serving certificate this long before it expires */
    renewBefore: durationMs.default(CERTIFICATE_DEFAULTS.renewBefore),
    /** self-managed: the CA */
    ca: z
      .strictObject({
        validity: durationMs.default(CERTIFICATE_DEFAULTS.ca.validity),
        /** start a CA rotation (old + new CA in every caBundle) this long before the CA expires */
        renewBefore: durationMs.default(CERTIFICATE_DEFAULTS.ca.renewBefore),
      })
      .default(CERTIFICATE_DEFAULTS.ca),
    /**
     * self-managed: how long a change takes to reach every API server (a caBundle) and every
     * replica (the Secret) — each step of a CA rotation waits this long after the one before
     */
    reloadDelay: durationMs
      .refine((ms) => ms >= 0, 'must not be negative')
      .default(CERTIFICATE_DEFAULTS.reloadDelay),
  })
  .superRefine((c, ctx) => {
    const issue = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: 'custom', path, message });
    if (c.renewBefore <= 0 || c.renewBefore >= c.validity)
      issue(
        ['renewBefore'],
        `must be more than 0 and less than validity (${c.validity} ms), got ${c.renewBefore} ms`,
      );
    if (c.ca.renewBefore >= c.ca.validity)
      issue(
        ['ca', 'renewBefore'],
        `must be less than ca.validity (${c.ca.validity} ms), got ${c.ca.renewBefore} ms`,
      );
    if (c.ca.renewBefore <= c.renewBefore)
      issue(
        ['ca', 'renewBefore'],
        `must be more than renewBefore (${c.renewBefore} ms): the CA rotates before the serving certificate it signed is due, got ${c.ca.renewBefore} ms`,
      );
    if (c.ca.renewBefore <= 2 * c.reloadDelay)
      issue(
        ['ca', 'renewBefore'],
        `must be more than twice reloadDelay (${2 * c.reloadDelay} ms): a CA rotation takes two reload delays before the old CA may go, got ${c.ca.renewBefore} ms`,
      );
  });

/** Deletion protection (Podseidon-compatible): where protectors live, the cells, the webhook. */
export const protectionSchema = z.strictObject({
  /** false: no webhook, aggregators or generator */
  enabled: z.boolean().default(true),
  /** the context holding PodProtectors (default: the first cluster) */
  core: z.string().min(1, 'must not be empty').optional(),
  /** default: every cluster, cell ID = context name */
  cells: z.array(cellEntry).optional(),
  /** the admission webhook: its own HTTPS listener, and how the API servers reach and trust it */
  webhook: z
    .strictObject({
      /** 0 picks a free port */
      port: z.number().int().min(0).max(65535).default(0),
      /** the address the webhook listens on (0.0.0.0: every interface) */
      host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
      /** create or update each cell's ValidatingWebhookConfiguration (default: on the embedded cluster only) */
      register: z.boolean().optional(),
      /** the URL the API servers call (default https://<host>:<port>) */
      url: z.string().url().optional(),
      /**
       * the Service the API servers call instead (clientConfig.service, paths /admission/<cell>,
       * /fences/<cell>, /epochs/<cell>); the serving certificate names <name>.<namespace>.svc and
       * <name>.<namespace>.svc.cluster.local
       */
      service: z
        .strictObject({
          namespace: dnsName,
          name: dnsName,
          port: z.number().int().min(1).max(65535).default(443),
        })
        .optional(),
      /** the serving certificate of replicas (url or service set): self-managed or cert-manager */
      certificates: certificatesSchema.optional(),
      /** with register: false, the configurations whose caBundle self-managed certificates keep current */
      configurations: z
        .array(dnsName)
        .min(1, 'must name at least one configuration')
        .default(WEBHOOK_CONFIGURATIONS),
      /** @deprecated certificates.secret: the Secret replicas serve from */
      servingSecret: secretRef.optional(),
      /**
       * the pod-deletion webhook's failurePolicy once the leader's self-probe through the API
       * server reached a replica (until then, and while the API server cannot be heard, Ignore)
       */
      failurePolicy: z
        .enum(['Fail', 'Ignore'], { error: (i) => `must be Fail or Ignore, got ${JSON.stringify(i.input)}` })
        .default('Fail'),
      /**
       * on SIGTERM (replicas behind url or service): how long the webhook keeps taking new
       * connections, at most, while its endpoints are being removed (it stops sooner once its pod
       * is gone from the Service's EndpointSlices); the chart sets its preStop sleep here
       */
      drainTimeout: durationMs.default(5_000),
      /** who may call: API servers presenting a client certificate (mutual TLS) */
      clientAuth: z
        .strictObject({
          /** false: any caller that reaches the port is heard (a warning says so at start) */
          required: z.boolean().default(true),
          /** a PEM bundle of the CAs to trust (default: the CA in each cell's kubeconfig) */
          caFile: z.string().min(1, 'must not be empty').optional(),
          /** matched exactly against the certificate's subject CN and its DNS SANs */
          allowedNames: z
            .array(z.string().min(1, 'must not be empty'))
            .min(1, 'must name at least one caller')
            .default(['kube-apiserver-webhook-client']),
        })
        .default({ required: true, allowedNames: ['kube-apiserver-webhook-client'] }),
    })
    .superRefine((w, ctx) => {
      if (w.certificates?.mode === 'cert-manager' && w.register === true)
        ctx.addIssue({
          code: 'custom',
          path: ['register'],
          message:
            'must not be true with certificates.mode cert-manager: the webhook configurations come from the chart (or your manifests) and cert-manager injects their caBundle',
        });
      if (w.certificates && w.servingSecret)
        ctx.addIssue({
          code: 'custom',
          path: ['servingSecret'],
          message: 'give certificates.secret only (servingSecret is its old name)',
        });
    })
    .default({
      port: 0,
      host: '127.0.0.1',
      failurePolicy: 'Fail',
      drainTimeout: 5_000,
      clientAuth: { required: true, allowedNames: ['kube-apiserver-webhook-client'] },
      configurations: WEBHOOK_CONFIGURATIONS,
    }),
  /** one aggregator per cell counts the pods and writes the protectors' status */
  aggregator: z
    .strictObject({
      /** a label selector: the protectors the aggregators reconcile (default all) */
      protectorSelector: z.string().default(''),
      /** an annotation heartbeat on a never-scheduled pod that keeps quiet watch streams moving */
      updateTrigger: z
        .strictObject({
          enabled: z.boolean().default(true),
          /** where the pod podseidon-update-trigger lives */
          namespace: z.string().min(1, 'must not be empty').default('default'),
          /** how often its annotation is written, in milliseconds */
          intervalMillis: z.number().int().min(50).default(1000),
        })
        .default({ enabled: true, namespace: 'default', intervalMillis: 1000 }),
    })
    .default({
      protectorSelector: '',
      updateTrigger: { enabled: true, namespace: 'default', intervalMillis: 1000 },
    }),
  /** derives a PodProtector from each opted-in Deployment and StatefulSet */
  generator: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** a label selector on Deployments and StatefulSets */
      workloadSelector: z.string().default('podseidon.kubewharf.io/protect=true'),
    })
    .default({ enabled: true, workloadSelector: 'podseidon.kubewharf.io/protect=true' }),
});

export type ProtectionConfig = z.infer<typeof protectionSchema>;

const sessionStoreKinds = ['memory', 'kubernetes'] as const;

/**
 * Where browser sessions live: in this process, or in Kubernetes Secrets every replica reads
 * (see sessionStoreOf for the default).
 */
const sessionStoreSchema = z
  .strictObject({
    /** memory (one process) or kubernetes (Secrets, shared by replicas) */
    kind: z.enum(sessionStoreKinds, {
      error: (i) => `must be one of ${sessionStoreKinds.join(', ')}, got ${JSON.stringify(i.input)}`,
    }),
    /** kubernetes: the namespace of the session Secrets (the console needs a Role there) */
    namespace: dnsName.optional(),
    /** kubernetes: the context of the cluster holding them (default: protection.core, else the first) */
    context: z.string().min(1, 'must not be empty').optional(),
    /**
     * kubernetes: the Secret holding the key that seals sessions at rest (AES-256-GCM) and the
     * audit records' key; made by Palisade with random keys if missing. Default
     * palisade-session-key in Palisade's own namespace (in a pod), else in `namespace`
     */
    keySecret: secretRef.optional(),
  })
  .superRefine((st, ctx) => {
    if (st.kind === 'memory')
      for (const k of ['namespace', 'context', 'keySecret'] as const)
        if (st[k] !== undefined)
          ctx.addIssue({ code: 'custom', path: [k], message: 'only for kind: kubernetes' });
  });

/** The console's own address and sessions (the request gate). */
export const serverSchema = z.strictObject({
  /** Host names the console answers besides loopback on its port: "name" (any port), "name:port", "*.domain" */
  allowedHosts: z.array(z.string().min(1, 'must not be empty')).default([]),
  /** the console's URL as browsers reach it (behind an Ingress that terminates TLS: https://...); cookies are Secure when https */
  publicURL: z
    .string()
    .url('must be a URL like https://palisade.example.com')
    .refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL')
    .optional(),
  /**
   * addresses or CIDRs of proxies in front of the console (an Ingress controller): from these
   * peers X-Forwarded-For names the client, which rate limits count per; from any other peer it
   * is ignored
   */
  trustedProxies: z
    .array(
      z.string().refine((v) => {
        try {
          trustedProxies([v]);
          return true;
        } catch {
          return false;
        }
      }, 'must be an IP address or a CIDR like 10.0.0.0/8'),
    )
    .default([]),
  /** browser sessions: their timeouts and where they are kept */
  session: z
    .strictObject({
      /** a session ends after this long without activity (an open console tab counts as activity) */
      idleTimeout: durationSchema.default(60 * 60_000),
      /** and this long after sign-in, whatever the activity */
      absoluteTimeout: durationSchema.default(12 * 3_600_000),
      store: sessionStoreSchema.optional(),
    })
    .default({ idleTimeout: 60 * 60_000, absoluteTimeout: 12 * 3_600_000 }),
});

/** Sign-in through an OpenID Connect identity provider; Palisade then impersonates the person. */
export const oidcSchema = z.strictObject({
  /** the provider's issuer URL (its discovery document is read from there) */
  issuer: z.string().url('must be the issuer URL, e.g. https://dex.example.com'),
  /** the client ID registered with the provider */
  clientID: z.string().min(1, 'must not be empty'),
  /** the client secret, or clientSecretFile (e.g. a mounted Secret) */
  clientSecret: z.string().min(1, 'must not be empty').optional(),
  /** a file holding the client secret (exactly one of clientSecret and clientSecretFile) */
  clientSecretFile: z.string().min(1, 'must not be empty').optional(),
  /** the ID token claim that names the person (kube-apiserver's claimMappings.username.claim) */
  usernameClaim: z.string().min(1).default('email'),
  /** the ID token claim that lists the person's groups (claimMappings.groups.claim) */
  groupsClaim: z.string().min(1).default('groups'),
  /** prepended to the name and the groups, as in the API server's claim mappings (e.g. "oidc:") */
  usernamePrefix: z.string().default(''),
  /** prepended to each group */
  groupsPrefix: z.string().default(''),
  /** the scopes asked for (offline_access: a refresh token, so the session is renewed) */
  scopes: z.array(z.string().min(1)).default(['openid', 'profile', 'email', 'groups', 'offline_access']),
  /** a PEM file of CAs to trust for the issuer (default: the system's) */
  caFile: z.string().min(1).optional(),
  /**
   * where the provider sends the browser after Palisade's sign-out ends the provider's session
   * (RP-initiated logout; register it with the provider as a post-logout redirect URI);
   * default the console's address with "/"
   */
  postLogoutRedirectURI: z.string().url('must be a URL like https://palisade.example.com/').optional(),
  /**
   * the only groups (with groupsPrefix) Palisade asserts when it impersonates a person; the others are
   * left out (logged at sign-in), since the API server refuses a request naming a group Palisade's
   * RBAC may not impersonate; unset: every group (the chart sets rbac.impersonation.groups)
   */
  allowedGroups: z.array(z.string().min(1, 'must not be empty')).optional(),
});

export type OidcConfig = z.infer<typeof oidcSchema>;

/** How people sign in (besides a Kubernetes token and the one-time link on loopback). */
export const authSchema = z.strictObject({ oidc: oidcSchema.optional() });

/** client-go's leader-election defaults (15 s / 10 s / 2 s) on Palisade's controller Lease */
export const DEFAULT_LEADER_ELECTION_CONFIG = {
  namespace: 'kube-system',
  name: 'palisade-controller',
  leaseDuration: 15_000,
  renewDeadline: 10_000,
  retryPeriod: 2_000,
};

/**
 * The controller loops (aggregators, generator, update triggers, fencing): every replica serves
 * the UI, the API and the webhook; on each cluster only the holder of this Lease runs the loops.
 */
export const controllersSchema = z.strictObject({
  /** one Lease per cluster: only its holder runs the controller loops */
  leaderElection: z
    .strictObject({
      /** where the Lease lives (one per cluster) */
      namespace: dnsName.default(DEFAULT_LEADER_ELECTION_CONFIG.namespace),
      /** the Lease's name */
      name: dnsName.default(DEFAULT_LEADER_ELECTION_CONFIG.name),
      /** how long followers wait after the last renewal before taking the Lease (whole seconds) */
      leaseDuration: durationSchema
        .refine((ms) => ms >= 1000 && ms % 1000 === 0, 'must be whole seconds, at least 1s')
        .default(DEFAULT_LEADER_ELECTION_CONFIG.leaseDuration),
      /** a leader that has not renewed for this long stops every loop */
      renewDeadline: durationSchema
        .refine((ms) => ms > 0, 'must be more than 0')
        .default(DEFAULT_LEADER_ELECTION_CONFIG.renewDeadline),
      /** how often to try to acquire or renew */
      retryPeriod: durationSchema
        .refine((ms) => ms > 0, 'must be more than 0')
        .default(DEFAULT_LEADER_ELECTION_CONFIG.retryPeriod),
    })
    .superRefine((le, ctx) => {
      // client-go's rules: the leader gives up before a follower may take over, and retries in between
      if (le.renewDeadline >= le.leaseDuration)
        ctx.addIssue({
          code: 'custom',
          path: ['renewDeadline'],
          message: `must be shorter than leaseDuration (${le.leaseDuration} ms), got ${le.renewDeadline} ms`,
        });
      if (le.retryPeriod * 1.2 >= le.renewDeadline)
        ctx.addIssue({
          code: 'custom',
          path: ['retryPeriod'],
          message: `must be shorter than renewDeadline / 1.2 (${Math.floor(le.renewDeadline / 1.2)} ms), got ${le.retryPeriod} ms`,
        });
    })
    .default(DEFAULT_LEADER_ELECTION_CONFIG),
});

export type ControllersConfig = z.infer<typeof controllersSchema>;

/** palisade.yaml's leader election as the runtime takes it */
export function leaderElectionOf(c: ControllersConfig) {
  const le = c.leaderElection;
  return {
    namespace: le.namespace,
    name: le.name,
    leaseDurationSeconds: le.leaseDuration / 1000,
    renewDeadlineMs: le.renewDeadline,
    retryPeriodMs: le.retryPeriod,
  };
}

/** A FencePolicy's credentialsNamespace when palisade.yaml names none and Palisade runs outside a pod. */
export const DEFAULT_CREDENTIALS_NAMESPACE = 'palisade-system';

/** Fencing: what FencePolicies may ask of Palisade. */
export const fencingSchema = z.strictObject({
  /**
   * the only namespaces a FencePolicy's agent.credentialsNamespace may name (Palisade reads the fence
   * agent's Secrets there); default: Palisade's own namespace (in a pod, the pod's; elsewhere
   * palisade-system). A policy naming another is refused when written and never run
   */
  credentialsNamespaces: z.array(dnsName).min(1, 'list at least one namespace').optional(),
  /**
   * FencePolicies the leader creates (or takes over) from this file, name -> spec; the chart's
   * fencing.policies. A policy's spec.paused is left as people set it
   */
  policies: z
    .record(dnsName, z.record(z.string(), z.unknown()))
    .superRefine((policies, ctx) => {
      // checked as Palisade reads a FencePolicy, written as given (defaults stay implicit)
      for (const [name, spec] of Object.entries(policies)) {
        const r = fencePolicySpec.safeParse(spec);
        for (const issue of r.error?.issues ?? [])
          ctx.addIssue({ code: 'custom', path: [name, ...issue.path], message: issue.message });
        // the agent rule the FencePolicy webhook applies: refused here at start, not at the write
        const agent = r.data?.agent;
        const v = agent?.type === 'exec' ? judgeAgentParameters(agent) : { ok: true as const };
        for (const problem of v.ok ? [] : v.problems)
          ctx.addIssue({
            code: 'custom',
            path: [name, 'agent'],
            message: problemText(problem),
          });
      }
    })
    .optional(),
});

export type FencingConfig = z.infer<typeof fencingSchema>;

/** The namespaces fence-agent credentials may come from: as configured, else Palisade's own. */
export function credentialsNamespacesOf(cfg: { fencing?: FencingConfig }, ownNamespace?: string): string[] {
  return cfg.fencing?.credentialsNamespaces ?? [ownNamespace ?? DEFAULT_CREDENTIALS_NAMESPACE];
}

/** the environment variable that gives storage.postgres.url (the chart sets it from a Secret) */
export const POSTGRES_URL_ENV = 'PALISADE_POSTGRES_URL';

/**
 * Where the incident history (timeline, audit, replay) is kept: PGlite (PostgreSQL in WASM, in
 * this process, files in the state directory under history/) unless a PostgreSQL server is given, which
 * several replicas share.
 */
export const storageSchema = z.strictObject({
  /** a PostgreSQL server instead of the embedded store: replicas share it (docs/history.md) */
  postgres: z
    .strictObject({
      /**
       * postgres://user:password@host:5432/db (default $PALISADE_POSTGRES_URL); the password is
       * never logged. Prefer the environment variable (from a Secret) to writing it here
       */
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a URL like postgres://user:password@host:5432/palisade')
        .optional(),
    })
    .default({}),
  /** how long entries are kept: older ones are deleted, a bounded batch every 10 minutes */
  retention: retentionSchema.prefault(DEFAULT_RETENTION),
  /** the embedded store's directory (default <state-dir>/history; with a kubeconfig and no --state-dir, a temporary one, lost at exit) */
  path: z.string().min(1, 'must not be empty').optional(),
});

export type StorageConfig = z.infer<typeof storageSchema>;

/** A namespace name, or "*" for every namespace. */
const namespaceOrAll = z
  .string()
  .regex(/^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/, 'must be a namespace name or "*"');

export const instanceIdsSchema = z.strictObject({
  /**
   * The namespaces whose opted-in workloads (labelled palisade.dev/instance-ids-enabled=true) get
   * instance IDs: Palisade patches workloads there and nowhere else (["*"]: every namespace). The
   * chart grants get/patch on deployments, statefulsets and jobs in each listed namespace. Default
   * (the key absent): none — except beside the embedded cluster, where every namespace.
   */
  namespaces: z.array(namespaceOrAll).default([]),
});
export type InstanceIdsConfig = z.infer<typeof instanceIdsSchema>;

export const incidentsSchema = z.strictObject({
  /** false: Palisade declares and resolves no Incident by itself */
  tracker: z.boolean().default(true),
  /**
   * how long the cluster stays healthy before the tracker resolves an incident it declared and
   * nobody commands (an incident a person commands or declared waits for that person)
   */
  resolveAfter: durationMs.default(60_000),
});
export type IncidentsConfig = z.infer<typeof incidentsSchema>;

export const configSchema = z
  .strictObject({
    /** the kubeconfig to read when neither --kubeconfig nor $KUBECONFIG is given */
    kubeconfig: z.string().min(1, 'must not be empty').optional(),
    /** contexts shown side by side, in this order (--context overrides the list, not the modes) */
    clusters: z.array(clusterEntry).default([]),
    /** the mode of a context the file does not list */
    defaultMode: mode.default('normal'),
    protection: protectionSchema.optional(),
    server: serverSchema.default({
      allowedHosts: [],
      trustedProxies: [],
      session: { idleTimeout: 60 * 60_000, absoluteTimeout: 12 * 3_600_000 },
    }),
    auth: authSchema.default({}),
    controllers: controllersSchema.default({ leaderElection: DEFAULT_LEADER_ELECTION_CONFIG }),
    storage: storageSchema.default({ postgres: {}, retention: retentionSchema.parse(DEFAULT_RETENTION) }),
    /** unique instance IDs: where Palisade may give them out (docs/instance-ids.md) */
    instanceIds: instanceIdsSchema.optional(),
    fencing: fencingSchema.default({}),
    /** the incident tracker: Incidents declared and resolved by Palisade (docs/console.md) */
    incidents: incidentsSchema.default({ tracker: true, resolveAfter: 60_000 }),
  })
  .superRefine((cfg, ctx) => {
    const oidc = cfg.auth.oidc;
    if (oidc && !oidc.clientSecret === !oidc.clientSecretFile)
      ctx.addIssue({
        code: 'custom',
        path: ['auth', 'oidc', 'clientSecret'],
        message: 'give exactly one of clientSecret and clientSecretFile',
      });
    const seen = new Set<string>();
    cfg.clusters.forEach((c, i) => {
      if (seen.has(c.context))
        ctx.addIssue({
          code: 'custom',
          path: ['clusters', i, 'context'],
          message: `"${c.context}" is listed twice`,
        });
      seen.add(c.context);
    });
  });

export type PalisadeConfig = z.infer<typeof configSchema>;

export const EMPTY_CONFIG: PalisadeConfig = configSchema.parse({});

/** Session Secrets' namespace when none is given: beside the controller Lease and the webhook's Secret. */
export const DEFAULT_SESSION_NAMESPACE = 'kube-system';

export type SessionStoreChoice =
  | { kind: 'memory' }
  | {
      kind: 'kubernetes';
      namespace: string;
      context?: string;
      keySecret?: { namespace: string; name: string };
    };

/**
 * Where sessions live. As configured; else shared (Kubernetes Secrets) whenever the console is
 * configured for replicas — a webhook URL or Service, the one address replicas serve behind — and in this
 * process for a single `npm start`.
 */
export function sessionStoreOf(cfg: PalisadeConfig): SessionStoreChoice {
  const st = cfg.server.session.store;
  const w = cfg.protection?.webhook;
  const kind = st?.kind ?? (w?.url || w?.service ? 'kubernetes' : 'memory');
  if (kind === 'memory') return { kind };
  return {
    kind,
    namespace: st?.namespace ?? DEFAULT_SESSION_NAMESPACE,
    ...((st?.context ?? cfg.protection?.core) ? { context: st?.context ?? cfg.protection?.core } : {}),
    ...(st?.keySecret ? { keySecret: st.keySecret } : {}),
  };
}

/**
 * Why the session Secrets' namespace may not be used, or undefined: it must differ from every
 * namespace fence-agent credentials may come from, so whoever may read those Secrets (BMC
 * passwords) reads no session, and the other way round.
 */
export function sessionNamespaceConflict(
  sessionNamespace: string,
  credentialsNamespaces: readonly string[],
): string | undefined {
  if (!credentialsNamespaces.includes(sessionNamespace)) return undefined;
  return `server.session.store.namespace: "${sessionNamespace}" is also a namespace of fence-agent credentials (fencing.credentialsNamespaces: ${credentialsNamespaces.join(', ')}); keep sessions in a namespace of their own`;
}

/** The mode a context runs in: the file's entry, else its default; --read-only wins over both. */
export function modeOf(cfg: PalisadeConfig, context: string, forceReadOnly = false): ClusterMode {
  if (forceReadOnly) return 'read-only';
  return cfg.clusters.find((c) => c.context === context)?.mode ?? cfg.defaultMode;
}

/** The contexts to show: --context if given, else the file's list (empty: the kubeconfig's current). */
export function contextsToShow(cfg: PalisadeConfig, fromFlags: string[]): string[] {
  return fromFlags.length ? fromFlags : cfg.clusters.map((c) => c.context);
}

/** The contexts deletion protection needs (its core and its cells), with the field naming each. */
export function protectionContexts(p: { core?: string; cells?: { context: string }[] } | undefined) {
  if (!p) return [];
  return [
    ...(p.core ? [{ context: p.core, field: 'protection.core' }] : []),
    ...(p.cells ?? []).map((c, i) => ({ context: c.context, field: `protection.cells[${i}].context` })),
  ];
}

export type CertificateMode = (typeof CERTIFICATE_MODES)[number];

/** The serving certificate's source, settled: per process (one `npm start`), or a Secret. */
export type WebhookCertificates =
  | { mode: 'process' }
  | {
      mode: CertificateMode;
      secret: { namespace: string; name: string };
      validity: number;
      renewBefore: number;
      ca: { validity: number; renewBefore: number };
      reloadDelay: number;
    };

/**
 * Where the webhook's certificate comes from: a Secret whenever replicas serve one address (url
 * or service set) or a mode is named — self-managed unless cert-manager is — else a pair made by
 * this process at start.
 */
export function webhookCertificatesOf(w: ProtectionConfig['webhook']): WebhookCertificates {
  const c = w.certificates;
  if (!c?.mode && !w.url && !w.service && !w.servingSecret && !c?.secret) return { mode: 'process' };
  const parsed = c ?? certificatesSchema.parse({});
  return {
    mode: parsed.mode ?? 'self-managed',
    secret: parsed.secret ??
      w.servingSecret ?? {
        namespace: w.service?.namespace ?? 'kube-system',
        name: 'palisade-webhook-serving',
      },
    validity: parsed.validity,
    renewBefore: parsed.renewBefore,
    ca: parsed.ca,
    reloadDelay: parsed.reloadDelay,
  };
}

/** The names the serving certificate carries for a Service: <name>.<ns>.svc and .svc.cluster.local. */
export function serviceNames(s: { namespace: string; name: string } | undefined): string[] {
  return s ? [`${s.name}.${s.namespace}.svc`, `${s.name}.${s.namespace}.svc.cluster.local`] : [];
}
