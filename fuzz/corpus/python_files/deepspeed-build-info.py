version='0.14.0'
git_hash='ce78a632'
git_branch='HEAD'
installed_ops={'async_io': False, 'fused_adam': True, 'cpu_adam': True, 'cpu_adagrad': False, 'cpu_lion': False, 'evoformer_attn': False, 'fused_lamb': False, 'fused_lion': False, 'inference_core_ops': False, 'cutlass_ops': False, 'transformer_inference': False, 'quantizer': False, 'ragged_device_ops': False, 'ragged_ops': False, 'random_ltd': False, 'sparse_attn': False, 'spatial_inference': False, 'transformer': False, 'stochastic_transformer': False}
compatible_ops={'async_io': False, 'fused_adam': True, 'cpu_adam': True, 'cpu_adagrad': True, 'cpu_lion': True, 'evoformer_attn': False, 'fused_lamb': True, 'fused_lion': True, 'inference_core_ops': True, 'cutlass_ops': True, 'transformer_inference': True, 'quantizer': True, 'ragged_device_ops': True, 'ragged_ops': True, 'random_ltd': True, 'sparse_attn': False, 'spatial_inference': True, 'transformer': True, 'stochastic_transformer': True, 'deepspeed_not_implemented': False}
accelerator_name='cuda'
torch_info={'version': '2.1', 'bf16_support': False, 'cuda_version': '12.1', 'nccl_version': '2.18', 'hip_version': '0.0'}
