/* sockets: TCP over the loopback between a listening, an accepting and
 * a connecting socket of one process, UDP with sendmsg and recvmsg
 * (gathered, scattered, truncated), a socketpair, options, a
 * non-blocking socket, poll, shutdown, the errors of bad families and
 * non-sockets, EPIPE, receive timeouts (SO_RCVTIMEO), and blocking
 * accept and recv ended by a timer's signal (EINTR, the handler without
 * SA_RESTART). The output names no address or port. */
#include <signal.h>
#include <sys/time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
static volatile sig_atomic_t ticks;
static void tick(int sig) { (void)sig; ticks++; }

int main(void)
{
	int l = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1; printf("setsockopt %d\n", setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	printf("bind %d\n", bind(l, (struct sockaddr*)&a, sizeof a));
	printf("listen %d\n", listen(l, 4));
	socklen_t al = sizeof a; printf("getsockname %d family %d port>0 %d\n", getsockname(l, (struct sockaddr*)&a, &al), a.sin_family, ntohs(a.sin_port) > 0);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	printf("connect %d\n", connect(c, (struct sockaddr*)&a, sizeof a));
	struct sockaddr_in p; al = sizeof p; int s = accept(l, (struct sockaddr*)&p, &al);
	printf("accept %d, peer loopback %d\n", s >= 0, p.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
	printf("send %zd\n", send(c, "ping", 4, 0));
	char b[16] = {0}; printf("recv %zd %s\n", recv(s, b, sizeof b, 0), b);
	printf("write %zd\n", write(s, "pong!", 5));
	memset(b, 0, sizeof b); printf("read %zd %s\n", read(c, b, sizeof b), b);
	int v; socklen_t vl = sizeof v; printf("getsockopt SO_TYPE %d %d\n", getsockopt(c, SOL_SOCKET, SO_TYPE, &v, &vl), v == SOCK_STREAM);
	printf("nodelay %d\n", setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
	fcntl(s, F_SETFL, O_NONBLOCK); printf("nonblocking recv %zd EAGAIN %d\n", recv(s, b, sizeof b, 0), errno == EAGAIN);
	printf("getfl nonblock %d, c blocking %d\n", (fcntl(s, F_GETFL) & O_NONBLOCK) != 0, (fcntl(c, F_GETFL) & O_NONBLOCK) == 0);
	struct pollfd pf = {.fd = s, .events = POLLIN}; printf("poll %d\n", poll(&pf, 1, 0));
	printf("shutdown %d\n", shutdown(c, SHUT_WR));
	pf.events = POLLIN; /* the peer's FIN may take a moment on a loaded machine */
	poll(&pf, 1, 5000);
	printf("recv after shutdown %zd\n", recv(s, b, sizeof b, MSG_DONTWAIT));
	int sv[2]; printf("socketpair %d\n", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	write(sv[0], "abc", 3); memset(b,0,sizeof b); printf("pair read %zd %s\n", read(sv[1], b, sizeof b), b);
	int u = socket(AF_INET, SOCK_DGRAM, 0), u2 = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)}; bind(u, (struct sockaddr*)&ua, sizeof ua);
	al = sizeof ua; getsockname(u, (struct sockaddr*)&ua, &al);
	printf("sendto %zd\n", sendto(u2, "udp", 3, 0, (struct sockaddr*)&ua, sizeof ua));
	struct sockaddr_in from; al = sizeof from; memset(b,0,sizeof b);
	printf("recvfrom %zd %s from loopback %d\n", recvfrom(u, b, sizeof b, 0, (struct sockaddr*)&from, &al), b, from.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
	struct iovec out[2] = {{"scat", 4}, {"tered", 5}};
	struct msghdr mh = {.msg_name = &ua, .msg_namelen = sizeof ua, .msg_iov = out, .msg_iovlen = 2};
	printf("sendmsg %zd\n", sendmsg(u2, &mh, 0));
	char p1[3] = {0}, p2[8] = {0};
	struct iovec in[2] = {{p1, 3}, {p2, 7}};
	struct sockaddr_in src;
	struct msghdr rh = {.msg_name = &src, .msg_namelen = sizeof src, .msg_iov = in, .msg_iovlen = 2};
	ssize_t got = recvmsg(u, &rh, 0);
	printf("recvmsg %zd %.3s|%.6s name %d flags %d\n", got, p1, p2, rh.msg_namelen == sizeof src, rh.msg_flags);
	sendto(u2, "0123456789", 10, 0, (struct sockaddr *)&ua, sizeof ua);
	struct iovec small = {p2, 4};
	struct msghdr th = {.msg_iov = &small, .msg_iovlen = 1};
	printf("recvmsg truncated %zd MSG_TRUNC %d\n", recvmsg(u, &th, 0), (th.msg_flags & MSG_TRUNC) != 0);
	printf("bad socket %d EAFNOSUPPORT %d\n", socket(12345, SOCK_STREAM, 0), errno == EAFNOSUPPORT);
	printf("not a socket %d ENOTSOCK %d\n", listen(1, 1), errno == ENOTSOCK);
	close(sv[0]); printf("send to closed pair %zd EPIPE %d\n", send(sv[1], "x", 1, MSG_NOSIGNAL), errno == EPIPE);
	struct timeval tv = {0, 20000};
	/* (A socket of its own: u's blocking recv below must wait for the
	 * timer's signal, not for a timeout.) */
	int u3 = socket(AF_INET, SOCK_DGRAM, 0);
	printf("SO_RCVTIMEO: %d\n", setsockopt(u3, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
	printf("recv past the timeout: %zd EAGAIN %d\n", recv(u3, b, sizeof b, 0), errno == EAGAIN);
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	printf("read past the timeout: %zd EAGAIN %d\n", read(c, b, sizeof b), errno == EAGAIN);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tick;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 0}, {0, 50000}}; /* long enough that the thread reaches the blocking call first, also on a loaded host */
	setitimer(ITIMER_REAL, &it, NULL);
	printf("blocking accept: %d EINTR %d, ticks %d\n", accept(l, NULL, NULL), errno == EINTR, ticks);
	setitimer(ITIMER_REAL, &it, NULL);
	printf("blocking recv: %zd EINTR %d, ticks %d\n", recv(u, b, sizeof b, 0), errno == EINTR, ticks);
	return 0;
}
