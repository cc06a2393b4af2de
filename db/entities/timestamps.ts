/** Column definitions every table shares. */
export const createdAt = { type: 'Date', columnType: 'timestamptz(3)', onCreate: () => new Date() } as const;
export const updatedAt = {
  type: 'Date',
  columnType: 'timestamptz(3)',
  onCreate: () => new Date(),
  onUpdate: () => new Date(),
} as const;
export const deletedAt = { type: 'Date', columnType: 'timestamptz(3)', nullable: true } as const;
