// Prints "rank R/N HOST sum=S" after an MPI_Allreduce of rank+1 over all ranks.
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  long contribution = rank + 1;
  long sum = 0;
  MPI_Allreduce(&contribution, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  std::printf("rank %d/%d %s sum=%ld\n", rank, size, host.data(), sum);
  MPI_Finalize();
  return 0;
}
