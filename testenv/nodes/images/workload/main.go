// workload: the real-node tier's test container. It runs until SIGTERM (after -term-delay,
// as a slow shutdown would), answers GET / on -listen with who it is, and with -write appends
// a line per -every to a file on a volume, so two writers on one volume show in the file.
//
//	workload [-listen :8080] [-write /data/writes] [-every 200ms] [-term-delay 0s]
//	workload sleep 5   # a preStop hook's command: sleep that many seconds, then exit 0
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "sleep" {
		s, err := strconv.ParseFloat(os.Args[2], 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sleep: not a number of seconds:", os.Args[2])
			os.Exit(2)
		}
		time.Sleep(time.Duration(s * float64(time.Second)))
		return
	}
	listen := flag.String("listen", "", "address to answer GET / on (empty: none)")
	write := flag.String("write", "", "file to append a line to every -every (empty: none)")
	every := flag.Duration("every", 200*time.Millisecond, "how often -write appends")
	termDelay := flag.Duration("term-delay", 0, "how long to keep running after SIGTERM")
	flag.Parse()

	host, _ := os.Hostname()
	who := fmt.Sprintf("%s pid=%d started=%s", host, os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
	fmt.Println("workload:", who)
	if *listen != "" {
		go serve(*listen, who)
	}
	if *write != "" {
		go appendLines(*write, who, *every)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	s := <-sig
	fmt.Println("workload: got", s, "- stopping in", *termDelay)
	time.Sleep(*termDelay)
}

func serve(addr, who string) {
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, who) })
	if err := http.ListenAndServe(addr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "workload: listen:", err)
		os.Exit(1)
	}
}

func appendLines(path, who string, every time.Duration) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "workload: write:", err)
		os.Exit(1)
	}
	for range time.Tick(every) {
		fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), who)
	}
}
