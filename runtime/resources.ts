/** Something a session holds open and must release when it closes. */
export interface Disposable {
  close(): Promise<void> | void;
}

/**
 * The session's open resources in one registry (HTTP pools today; database pools, listeners and
 * timers next), so closing a session releases everything it opened, whichever layer opened it.
 * Keyed entries are shared: the same key gives the same resource to every run of the session.
 */
export class Resources {
  private readonly keyed = new Map<string, Disposable>();
  private readonly unkeyed = new Set<Disposable>();
  private closed = false;

  /** The resource under `key`, created on first use. */
  shared<T extends Disposable>(key: string, create: () => T): T {
    this.assertOpen();
    let r = this.keyed.get(key);
    if (!r) {
      r = create();
      this.keyed.set(key, r);
    }
    return r as T;
  }

  /** Adds a resource with a life of its own (a listener); `release` closes it before the session ends. */
  add<T extends Disposable>(resource: T): T {
    this.assertOpen();
    this.unkeyed.add(resource);
    return resource;
  }

  /** Closes one resource early and forgets it. */
  async release(resource: Disposable): Promise<void> {
    if (this.unkeyed.delete(resource)) await resource.close();
  }

  /** Closes everything; a failure of one does not keep the others open. The first error is thrown after. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.keyed.values(), ...this.unkeyed];
    this.keyed.clear();
    this.unkeyed.clear();
    const outcomes = await Promise.allSettled(all.map(async (r) => r.close()));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the session is closed');
  }
}
