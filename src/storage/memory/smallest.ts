/**
 * Keeps the `limit` smallest of the items it is offered under `compare`, in O(log limit) per
 * item (a bounded max-heap), so a claim does not sort every pending row to take a few.
 *
 * @internal
 */
export class Smallest<T> {
  /** Max-heap: the largest kept item is at index 0. */
  private readonly heap: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    if (this.limit < 1) return;
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(item);
      this.siftUp(heap.length - 1);
    } else if (this.compare(item, heap[0] as T) < 0) {
      heap[0] = item;
      this.siftDown(0);
    }
  }

  /** The kept items, smallest first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i] as T, heap[parent] as T) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent] as T, heap[i] as T];
      i = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let largest = i;
      if (left < heap.length && this.compare(heap[left] as T, heap[largest] as T) > 0) {
        largest = left;
      }
      if (right < heap.length && this.compare(heap[right] as T, heap[largest] as T) > 0) {
        largest = right;
      }
      if (largest === i) return;
      [heap[i], heap[largest]] = [heap[largest] as T, heap[i] as T];
      i = largest;
    }
  }
}
