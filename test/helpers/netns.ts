/**
 * Worker "hosts" with addresses of their own on this machine: Linux network namespaces, each
 * joined to the root namespace by a veth pair on a /24 of its own (10.<net>.<i>.1 on the root
 * side, 10.<net>.<i>.2 inside). A host is cut off by taking its inner link down: its packets go
 * nowhere and the root side's route stays (linkdown), so nothing ever leaves the machine.
 * Everything made here is named with a per-run tag and removed by {@link removeHosts}.
 *
 * Needs root and iproute2; {@link netnsUnavailable} says why not.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** One namespace host. */
export interface NetHost {
  /** Short name, such as `a`. */
  name: string;
  /** Network namespace. */
  ns: string;
  /** The root side's veth and address (what the host connects to). */
  rootIf: string;
  rootAddr: string;
  /** The host's own veth and address. */
  hostIf: string;
  hostAddr: string;
}

/** Runs `ip …`; throws with its stderr when it fails. */
export function ip(args: readonly string[]): string {
  const result = spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0) {
    throw new Error(`ip ${args.join(' ')}: ${result.stderr || result.error?.message || ''}`);
  }
  return result.stdout;
}

/** Why namespace hosts cannot be made here, or `null` when they can. */
export function netnsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'not root';
  const probe = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return 'no working `ip netns` (iproute2)';
  return null;
}

/**
 * Makes `names.length` hosts. The second octet is random per run (100–249), so runs at the same
 * time on one machine do not collide; every name carries a random tag.
 */
export function makeHosts(names: readonly string[]): NetHost[] {
  const tag = randomBytes(3).toString('hex');
  const net = 100 + ((randomBytes(1)[0] ?? 0) % 150);
  const hosts: NetHost[] = [];
  try {
    names.forEach((name, i) => {
      const host: NetHost = {
        name,
        ns: `chokaq-${tag}-${name}`,
        rootIf: `cq${tag}${i}r`,
        rootAddr: `10.${net}.${i + 1}.1`,
        hostIf: `cq${tag}${i}h`,
        hostAddr: `10.${net}.${i + 1}.2`,
      };
      hosts.push(host);
      ip(['netns', 'add', host.ns]);
      ip([
        'link',
        'add',
        host.rootIf,
        'type',
        'veth',
        'peer',
        'name',
        host.hostIf,
        'netns',
        host.ns,
      ]);
      ip(['addr', 'add', `${host.rootAddr}/24`, 'dev', host.rootIf]);
      ip(['link', 'set', host.rootIf, 'up']);
      inHost(host, ['addr', 'add', `${host.hostAddr}/24`, 'dev', host.hostIf]);
      inHost(host, ['link', 'set', host.hostIf, 'up']);
      inHost(host, ['link', 'set', 'lo', 'up']);
    });
  } catch (error) {
    removeHosts(hosts);
    throw error;
  }
  return hosts;
}

/** Runs `ip …` inside `host`'s namespace. */
function inHost(host: NetHost, args: readonly string[]): string {
  return ip(['netns', 'exec', host.ns, 'ip', ...args]);
}

/** The command prefix that runs a program inside `host`. */
export function runIn(host: NetHost): string[] {
  return ['ip', 'netns', 'exec', host.ns];
}

/** Cuts `host` off: its link goes down, every packet to or from it is dropped. */
export function cut(host: NetHost): void {
  inHost(host, ['link', 'set', host.hostIf, 'down']);
}

/** Heals a cut: the link comes back with its address and route. */
export function heal(host: NetHost): void {
  inHost(host, ['link', 'set', host.hostIf, 'up']);
}

/** Removes the hosts' namespaces and links (the veth pair goes with either end). Never throws. */
export function removeHosts(hosts: readonly NetHost[]): void {
  for (const host of hosts) {
    spawnSync('ip', ['link', 'del', host.rootIf], { timeout: 10_000 });
    spawnSync('ip', ['netns', 'del', host.ns], { timeout: 10_000 });
  }
}
