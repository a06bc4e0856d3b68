/** Serialises async sections that share one synchronous connection. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(section: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await section();
    } finally {
      release();
    }
  }
}
