import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../resources/types.js';
import { toTable } from './index.js';
import { NOW, ago, obj, resource } from './testutil.js';

const PODS = resource('Pod');
const running = { running: { startedAt: ago(600) } };
const app = (status: Record<string, unknown>) => ({ name: 'app', restartCount: 0, ready: false, ...status });

function pod(status: Record<string, unknown>, spec: Record<string, unknown> = {}, meta = {}): KubeObject {
  return obj('web-0', { spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec }, status }, meta);
}

function row(p: KubeObject) {
  return toTable(PODS, [p], { includeObject: 'None', resourceVersion: '1', now: NOW }).rows[0];
}

const initSpec = { initContainers: [{ name: 'migrate' }, { name: 'seed' }] };
const deleting = { deletionTimestamp: ago(5) };

// [case, pod, READY, STATUS, RESTARTS]
const cases: Array<[string, KubeObject, string, string, string]> = [
  [
    'running and ready',
    pod({ phase: 'Running', containerStatuses: [app({ ready: true, state: running })] }),
    '1/1',
    'Running',
    '0',
  ],
  ['pending, nothing reported', pod({ phase: 'Pending' }), '0/1', 'Pending', '0'],
  [
    'container creating',
    pod({
      phase: 'Pending',
      containerStatuses: [app({ state: { waiting: { reason: 'ContainerCreating' } } })],
    }),
    '0/1',
    'ContainerCreating',
    '0',
  ],
  [
    'crash loop with last restart time',
    pod({
      phase: 'Running',
      containerStatuses: [
        app({
          restartCount: 5,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(200) } },
        }),
      ],
    }),
    '0/1',
    'CrashLoopBackOff',
    '5 (3m20s ago)',
  ],
  [
    'completed',
    pod({
      phase: 'Succeeded',
      containerStatuses: [app({ state: { terminated: { exitCode: 0, reason: 'Completed' } } })],
    }),
    '0/1',
    'Completed',
    '0',
  ],
  [
    'terminated by signal without reason',
    pod({
      phase: 'Failed',
      containerStatuses: [app({ state: { terminated: { exitCode: 137, signal: 9 } } })],
    }),
    '0/1',
    'Signal:9',
    '0',
  ],
  [
    'terminated with exit code only',
    pod({ phase: 'Failed', containerStatuses: [app({ state: { terminated: { exitCode: 2 } } })] }),
    '0/1',
    'ExitCode:2',
    '0',
  ],
  ['evicted', pod({ phase: 'Failed', reason: 'Evicted' }), '0/1', 'Evicted', '0'],
  [
    'terminating',
    pod({ phase: 'Running', containerStatuses: [app({ ready: true, state: running })] }, {}, deleting),
    '1/1',
    'Terminating',
    '0',
  ],
  [
    'deleted after success stays Completed',
    pod(
      {
        phase: 'Succeeded',
        containerStatuses: [app({ state: { terminated: { exitCode: 0, reason: 'Completed' } } })],
      },
      {},
      deleting,
    ),
    '0/1',
    'Completed',
    '0',
  ],
  [
    'node lost',
    pod({ phase: 'Running', reason: 'NodeLost', containerStatuses: [app({ ready: true, state: running })] }),
    '1/1',
    'NodeLost',
    '0',
  ],
  [
    'node lost while deleting',
    pod(
      { phase: 'Running', reason: 'NodeLost', containerStatuses: [app({ ready: true, state: running })] },
      {},
      deleting,
    ),
    '1/1',
    'Unknown',
    '0',
  ],
  [
    'scheduling gated',
    pod({
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
    }),
    '0/1',
    'SchedulingGated',
    '0',
  ],
  [
    'second init container running',
    pod(
      {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'migrate', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          { name: 'seed', restartCount: 0, state: running },
        ],
        containerStatuses: [app({ state: { waiting: { reason: 'PodInitializing' } } })],
      },
      initSpec,
    ),
    '0/1',
    'Init:1/2',
    '0',
  ],
  [
    'init crash loop counts init restarts only',
    pod(
      {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'migrate', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } },
          { name: 'seed', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
        ],
        containerStatuses: [app({ restartCount: 7, state: { waiting: { reason: 'PodInitializing' } } })],
      },
      initSpec,
    ),
    '0/1',
    'Init:CrashLoopBackOff',
    '3',
  ],
  [
    'init container failed',
    pod(
      {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'migrate', restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } },
        ],
      },
      initSpec,
    ),
    '0/1',
    'Init:Error',
    '0',
  ],
  [
    'init container exit code without reason',
    pod(
      {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'migrate', state: { terminated: { exitCode: 2 } } }],
      },
      initSpec,
    ),
    '0/1',
    'Init:ExitCode:2',
    '0',
  ],
  [
    'init container still initializing',
    pod(
      {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'migrate', state: { waiting: { reason: 'PodInitializing' } } }],
      },
      initSpec,
    ),
    '0/1',
    'Init:0/2',
    '0',
  ],
  [
    'started sidecar counts toward ready and restarts',
    pod(
      {
        phase: 'Running',
        initContainerStatuses: [
          { name: 'proxy', restartCount: 1, started: true, ready: true, state: running },
        ],
        containerStatuses: [app({ ready: true, state: running })],
      },
      { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] },
    ),
    '2/2',
    'Running',
    '1',
  ],
  [
    'one container done, one running, pod not ready',
    pod(
      {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          app({ ready: true, state: running }),
          { name: 'job', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        ],
      },
      { containers: [{ name: 'app' }, { name: 'job' }] },
    ),
    '1/2',
    'NotReady',
    '0',
  ],
  [
    'one container done, one running, pod ready',
    pod(
      {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          app({ ready: true, state: running }),
          { name: 'job', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        ],
      },
      { containers: [{ name: 'app' }, { name: 'job' }] },
    ),
    '1/2',
    'Running',
    '0',
  ],
];

describe('pod printer', () => {
  it.each(cases)('%s', (_, p, ready, status, restarts) => {
    expect(row(p).cells.slice(0, 5)).toEqual(['web-0', ready, status, restarts, '60m']);
  });

  it('marks finished pods with a Completed row condition', () => {
    expect(row(pod({ phase: 'Succeeded' })).conditions).toEqual([
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ]);
    expect(row(pod({ phase: 'Failed' })).conditions?.[0]?.reason).toBe('Failed');
    expect(row(pod({ phase: 'Running' })).conditions).toBeUndefined();
  });

  it.each<[string, KubeObject, string[]]>([
    ['nothing assigned', pod({ phase: 'Pending' }), ['<none>', '<none>', '<none>', '<none>']],
    [
      'scheduled with gates',
      pod(
        {
          podIPs: [{ ip: '10.244.1.7' }, { ip: 'fd00::7' }],
          podIP: '10.244.1.7',
          nominatedNodeName: 'worker-2',
          conditions: [
            { type: 'example.com/lb', status: 'True' },
            { type: 'example.com/dns', status: 'False' },
          ],
        },
        {
          nodeName: 'worker-1',
          readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }],
        },
      ),
      ['10.244.1.7', 'worker-1', 'worker-2', '1/2'],
    ],
    [
      'only the singular podIP',
      pod({ podIP: '10.0.0.9' }, { nodeName: 'n' }),
      ['10.0.0.9', 'n', '<none>', '<none>'],
    ],
  ])('wide cells: %s', (_, p, wide) => {
    expect(row(p).cells.slice(5)).toEqual(wide);
  });

  it('declares the real column set', () => {
    const table = toTable(PODS, [], { includeObject: 'None', resourceVersion: '1', now: NOW });
    const cols = table.columnDefinitions.map((c) => [c.name, c.type, c.priority, c.format]);
    expect(cols).toEqual([
      ['Name', 'string', 0, 'name'],
      ['Ready', 'string', 0, ''],
      ['Status', 'string', 0, ''],
      ['Restarts', 'string', 0, ''],
      ['Age', 'string', 0, ''],
      ['IP', 'string', 1, ''],
      ['Node', 'string', 1, ''],
      ['Nominated Node', 'string', 1, ''],
      ['Readiness Gates', 'string', 1, ''],
    ]);
  });
});
