/** Types of allocator-env.js: the environment every production process of this app gets. */
export declare const ALLOCATOR_ENV: { MALLOC_ARENA_MAX: string; MALLOC_MMAP_THRESHOLD_: string };
