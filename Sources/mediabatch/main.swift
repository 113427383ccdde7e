import MediaBatchCore
try hello()
