
typedef int index_t;

extern "C" __global__ void __launch_bounds__(1024) __cluster_dims__(3, 1, 1) N_max_sub_exp_sum_e746305c(const float* in0, float* __restrict__ out0) {
  tessel_grid_begin();
  // 2 rows of 40000: 1024 threads x 16 lanes hold a part of 13336 (3 a row) (4-element vectors)
  __shared__ float scratch_f32[32];
  __shared__ float slot_acc0[2];
  __shared__ float slot_acc1[2];
  const index_t row = blockIdx.x / 3;
  const index_t start = (index_t)(blockIdx.x % 3) * 13336;  // this block's part
  const int tid = threadIdx.x;
  auto col = [tid](int k) -> index_t { return (index_t)((k / 4) * 1024 + tid) * 4 + k % 4; };
  const index_t limit = min((index_t)13336, (index_t)40000 - start);  // this part's values
  float in0_0[16];
  #pragma unroll
  for (int k = 0; k < 16; k += 4) {
    tessel_vec<float, 4> vec{};
    if (col(k) < limit) vec = tessel_load_vec<float, 4>(in0 + (row * 40000 + (start + col(k))));
    #pragma unroll
    for (int j = 0; j < 4; ++j) in0_0[k + j] = vec.v[j];
  }
  float acc0 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < 16; ++k) if (col(k) < limit) acc0 = tessel_max(acc0, (float)in0_0[k]);
  const float max0 = tessel_cluster_reduce<3>(tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32), tessel_max_op(), slot_acc0, 1);
  float sub0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) sub0[k] = (in0_0[k] - max0);
  float exp0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) exp0[k] = tessel_exp_term(sub0[k]);
  float acc1 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 16; ++k) if (col(k) < limit) acc1 = acc1 + (float)exp0[k];
  const float sum0 = tessel_cluster_reduce<3>(tessel_block_reduce(acc1, tessel_sum_op(), 0.0f, scratch_f32), tessel_sum_op(), slot_acc1, 1);
  tessel_cluster_arrive();  // this block's reads of the others' slots are done
  const float rcp0 = __frcp_rn(sum0);
  float div0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) div0[k] = (exp0[k] * rcp0);
  #pragma unroll
  for (int k = 0; k < 16; k += 4) {
    tessel_vec<float, 4> vec;
    #pragma unroll
    for (int j = 0; j < 4; ++j) vec.v[j] = div0[k + j];
    if (col(k) < limit) tessel_store_vec<float, 4>(out0 + (row * 40000 + (start + col(k))), vec);
  }
  tessel_cluster_wait();  // no block leaves while another may read its slots
}
