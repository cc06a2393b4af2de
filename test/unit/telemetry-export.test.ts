/**
 * The OTLP export's batches: fewer, larger posts than the SDK's defaults, unless the operator sets the
 * specification's OTEL_BSP_* variables, which the SDK then reads itself.
 */
import { expect } from 'chai';
import { exportBatchOf } from '../../domain/platform/tracing';

describe('OTLP export: the batch span processor', () => {
  it('posts up to 2,048 spans at a time from a queue of 8,192 when OTEL_BSP_* are unset', () => {
    expect(exportBatchOf({})).to.deep.equal({ maxExportBatchSize: 2048, maxQueueSize: 8192 });
  });

  it('leaves each size an OTEL_BSP_* variable sets to the SDK, which reads the variable', () => {
    expect(exportBatchOf({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '100' })).to.deep.equal({ maxQueueSize: 8192 });
    expect(exportBatchOf({ OTEL_BSP_MAX_QUEUE_SIZE: '100' })).to.deep.equal({ maxExportBatchSize: 2048 });
  });
});
