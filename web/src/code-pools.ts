/** A code pool as GET /api/v1/code-pools/{poolId} answers. */
export interface CodePool {
  readonly poolId: string;
  readonly title: string;
  readonly description: string;
  readonly imageUrl: string | null;
  readonly saleStartsAt: string;
  readonly saleEndsAt: string;
  readonly status: 'UPCOMING' | 'ON_SALE' | 'ENDED';
  readonly secondsRemaining: number;
  readonly imported: number;
  readonly remaining: number;
  readonly participated: boolean;
  readonly myCode: GrabbedCode | null;
}

export interface GrabbedCode {
  readonly code: string;
  readonly grabbedAt: string;
}

export interface MyCode extends GrabbedCode {
  readonly poolId: string;
  readonly poolTitle: string;
}

export interface ImportCounts {
  readonly imported: number;
  readonly duplicates: number;
  readonly rejected: number;
}
