public enum PipelineModelPlaceholder {}
