package trace

import "strings"

// A launcher starts a command somewhere else (a container, a cluster
// node) with the same files: the repository is mounted where the script
// expects it. A dry run follows the command as if it ran here, with the
// environment the launcher adds. Each takes the launcher's arguments
// after its name and returns the command and the variables it sets.
var launchers = map[string]func(args []string) (cmd []string, env map[string]string){
	"docker":  dockerRun,
	"podman":  dockerRun,
	"srun":    slurmTask,
	"sbatch":  slurmRun,
	"salloc":  slurmRun,
	"mpirun":  mpiRun,
	"mpiexec": mpiRun,
}

// mpiFlags are mpirun's options that take no value.
var mpiFlags = set("--oversubscribe", "--allow-run-as-root", "--bind-to-none", "--tag-output", "-q", "--quiet", "-v", "--verbose")

// mpiRun reads "mpirun [options] COMMAND...", with -x NAME=VALUE setting
// the command's environment.
func mpiRun(args []string) ([]string, map[string]string) {
	env := map[string]string{}
	rest := options(args, mpiFlags, func(opt, val string) bool {
		if opt == "-x" {
			if k, v, ok := strings.Cut(val, "="); ok {
				env[k] = v
			}
		}
		return false
	})
	return rest, env
}

// dockerFlags are docker run's options that take no value.
var dockerFlags = set("--rm", "-d", "--detach", "-i", "-t", "-it", "-ti", "--init", "--privileged", "--interactive", "--tty", "-P", "--read-only")

// dockerRun reads "docker run [options] IMAGE [COMMAND...]" (and exec,
// which names a container instead of an image).
func dockerRun(args []string) ([]string, map[string]string) {
	if len(args) == 0 || (args[0] != "run" && args[0] != "exec") {
		return nil, nil
	}
	env := map[string]string{}
	rest := options(args[1:], dockerFlags, func(opt, val string) bool {
		if opt == "-e" || opt == "--env" {
			if k, v, ok := strings.Cut(val, "="); ok {
				env[k] = v
			}
		}
		return false
	})
	if len(rest) < 2 {
		return nil, env // an image alone runs its own entrypoint
	}
	return rest[1:], env
}

// slurmFlags are srun/sbatch options that take no value.
var slurmFlags = set("--exclusive", "--overlap", "--pty", "-l", "--label", "--no-container-mount-home",
	"--container-remap-root", "--container-writable", "--mpi=pmix", "-Q", "--quiet", "-v", "--verbose", "--wait", "-W", "--parsable",
	// Options whose value is optional, written without one.
	"--unbuffered", "-u", "--kill-on-bad-exit", "-K", "--no-kill", "-k", "--exact", "--whole", "--propagate",
	"--contiguous", "--oversubscribe", "-O", "--hold", "-H", "--requeue", "--no-requeue", "--spread-job",
	"--test-only", "--use-min-nodes", "--disable-status", "-X", "--no-allocate", "-Z", "--export-file")

// slurmRun reads "srun|sbatch|salloc [options] COMMAND..."; sbatch
// --wrap runs its string as a command.
func slurmRun(args []string) ([]string, map[string]string) {
	var wrap []string
	rest := options(args, slurmFlags, func(opt, val string) bool {
		if opt == "--wrap" {
			wrap = []string{"bash", "-c", val}
			return true
		}
		return false
	})
	// The job's variables, as Slurm sets them in a batch script and its
	// steps.
	env := map[string]string{"SLURM_JOB_ID": batchJobID, "SLURM_JOBID": batchJobID}
	if wrap != nil {
		return wrap, env
	}
	return rest, env
}

// slurmNode is the node a dry run's Slurm tasks run on, as a healthy
// cluster names it to them.
const slurmNode = "node001"

// slurmTask reads srun: its command runs as the first task of the job,
// with the variables Slurm gives every task (a script that picks its role
// by rank takes rank 0's).
func slurmTask(args []string) ([]string, map[string]string) {
	cmd, env := slurmRun(args)
	for k, v := range map[string]string{"SLURM_JOB_ID": batchJobID, "SLURM_JOBID": batchJobID, "SLURM_STEP_ID": "0",
		"SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NODEID": "0", "SLURMD_NODENAME": slurmNode} {
		env[k] = v
	}
	return cmd, env
}

// options consumes a launcher's options (--opt=val, --opt val, or a flag
// in flags), calling each with its value until each returns true, and
// returns what follows them.
func options(args []string, flags map[string]bool, each func(opt, val string) bool) []string {
	rest := args
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		opt := rest[0]
		val, hasVal := "", strings.Contains(opt, "=")
		if hasVal {
			opt, val, _ = strings.Cut(opt, "=")
		}
		rest = rest[1:]
		if !hasVal && !flags[opt] && len(rest) > 0 {
			val, rest = rest[0], rest[1:]
		}
		if each(opt, val) {
			break
		}
	}
	return rest
}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
