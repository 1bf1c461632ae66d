// ledger: a bank's ledger in C++: parse, apply and report transactions.
//
// Exercises what C++ programs lean on: virtual calls (three kinds of
// account behind one interface), exceptions thrown and caught (malformed
// lines, unknown accounts, overdrafts: std::runtime_error subclasses and
// std::out_of_range from map::at), STL containers (vector, map,
// unordered_map, string, set), std::sort and std::stable_sort with
// lambdas, std::unique_ptr, string streams for parsing, and iostreams
// with manipulators (setw, fixed, setprecision, hex) for output.
//
// The program generates N transaction lines from its own random number
// generator ("deposit NAME AMOUNT", "withdraw NAME AMOUNT", "transfer FROM
// TO AMOUNT", "month", with a few deliberately malformed lines and unknown
// names among them), parses each with an istringstream, applies it to the
// accounts, and at the end prints a report: totals per kind of account,
// the largest and smallest balances, errors by type, and the most frequent
// memo words.
//
// Size argument: N, the number of transaction lines (default 50000; the
// work grows as N).  Small size: 1000 (~0.02 s under qemu-riscv64).
//
// Self-check: every successful operation is also recorded in a journal,
// replayed at the end on a plain model (an array of balances and a switch
// on the kind, no virtual calls, no exceptions) that must give every
// account's balance; the money in the bank must equal deposits minus
// withdrawals plus interest minus fees; and the number of parse errors
// must equal the number of malformed lines generated.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

uint64_t rng_state = 0x2545f4914f6cdd1dull;

uint32_t next_rand()
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return static_cast<uint32_t>((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

// Amounts are in cents.
using Money = int64_t;

struct ParseError : std::runtime_error {
	explicit ParseError(const std::string &what) : std::runtime_error(what) {}
};

struct UnknownAccount : std::runtime_error {
	explicit UnknownAccount(const std::string &name) : std::runtime_error("unknown account " + name) {}
};

struct InsufficientFunds : std::runtime_error {
	Money short_by;
	InsufficientFunds(const std::string &name, Money s)
		: std::runtime_error("insufficient funds in " + name), short_by(s) {}
};

enum Kind { CHECKING, SAVINGS, CREDIT };

class Account {
public:
	Account(std::string name, Money opening) : balance_(opening), name_(std::move(name)) {}
	virtual ~Account() = default;

	const std::string &name() const { return name_; }
	Money balance() const { return balance_; }
	virtual Kind kind() const = 0;
	virtual const char *kind_name() const = 0;

	void deposit(Money m) { balance_ += m; }
	// Takes m out, or throws InsufficientFunds leaving the balance alone.
	virtual void withdraw(Money m)
	{
		if (balance_ - m < floor())
			throw InsufficientFunds(name_, floor() - (balance_ - m));
		balance_ -= m;
	}
	// The end of a month: interest (positive) or fees (negative); returns
	// the change.
	virtual Money month() = 0;

protected:
	virtual Money floor() const { return 0; }
	Money balance_ = 0;

private:
	std::string name_;
};

class Checking : public Account {
public:
	using Account::Account;
	Kind kind() const override { return CHECKING; }
	const char *kind_name() const override { return "checking"; }
	// A monthly fee of 2.00, waived above 1000.00.
	Money month() override
	{
		Money fee = balance_ >= 100000 ? 0 : 200;
		balance_ -= fee;
		return -fee;
	}

protected:
	Money floor() const override { return -50000; } // overdraft to -500.00
};

class Savings : public Account {
public:
	using Account::Account;
	Kind kind() const override { return SAVINGS; }
	const char *kind_name() const override { return "savings"; }
	// 0.25% a month on a positive balance, rounded down to the cent.
	Money month() override
	{
		Money interest = balance_ > 0 ? balance_ / 400 : 0;
		balance_ += interest;
		return interest;
	}
};

class Credit : public Account {
public:
	using Account::Account;
	Kind kind() const override { return CREDIT; }
	const char *kind_name() const override { return "credit"; }
	// 1.5% a month charged on a negative balance, rounded toward zero.
	Money month() override
	{
		Money charge = balance_ < 0 ? balance_ * 3 / 200 : 0;
		balance_ += charge;
		return charge;
	}

protected:
	Money floor() const override { return -500000; } // a limit of 5000.00
};

// One successful operation, for the replay.
struct Entry {
	enum Op { DEPOSIT, WITHDRAW, TRANSFER, MONTH } op;
	int from, to;
	Money amount;
};

const char *const first_names[] = { "ada", "alan", "barbara", "claude", "dennis", "edsger",
	"frances", "grace", "john", "ken", "leslie", "margaret", "niklaus", "radia", "tony" };
const char *const memo_words[] = { "rent", "food", "books", "salary", "coffee", "travel",
	"gift", "tax", "repair", "music" };

class Bank {
public:
	Bank()
	{
		int id = 0;
		for (const char *first : first_names) {
			for (int k = 0; k < 3; k++) {
				std::string name = std::string(first) + "-" + "csx"[k];
				Money opening = 10000 + (next_rand() % 50000);
				std::unique_ptr<Account> a;
				switch (k) {
				case 0: a = std::make_unique<Checking>(name, opening); break;
				case 1: a = std::make_unique<Savings>(name, opening); break;
				default: a = std::make_unique<Credit>(name, 0); opening = 0; break;
				}
				by_name_[name] = id++;
				opening_.push_back(opening);
				accounts_.push_back(std::move(a));
			}
		}
	}

	// Parses and applies one line; throws on any error, changing nothing.
	void apply(const std::string &line)
	{
		std::istringstream in(line);
		std::string op;
		in >> op;
		if (op == "deposit" || op == "withdraw") {
			std::string name;
			Money amount = parse_amount(in >> name);
			int id = lookup(name);
			if (op == "deposit") {
				accounts_[id]->deposit(amount);
				deposits_ += amount;
				journal_.push_back({ Entry::DEPOSIT, id, -1, amount });
			} else {
				accounts_[id]->withdraw(amount);
				withdrawals_ += amount;
				journal_.push_back({ Entry::WITHDRAW, id, -1, amount });
			}
		} else if (op == "transfer") {
			std::string from, to;
			in >> from >> to;
			Money amount = parse_amount(in);
			int f = lookup(from), t = lookup(to);
			accounts_[f]->withdraw(amount); // may throw: nothing moved yet
			accounts_[t]->deposit(amount);
			journal_.push_back({ Entry::TRANSFER, f, t, amount });
		} else if (op == "month") {
			for (auto &a : accounts_) {
				Money change = a->month();
				if (change > 0)
					interest_ += change;
				else
					fees_ -= change;
			}
			journal_.push_back({ Entry::MONTH, -1, -1, 0 });
		} else {
			throw ParseError("unknown operation '" + op + "'");
		}
		std::string memo;
		while (in >> memo)
			memo_count_[memo]++;
	}

	const std::vector<std::unique_ptr<Account>> &accounts() const { return accounts_; }
	const std::unordered_map<std::string, int> &memo_count() const { return memo_count_; }
	Money expected_total() const
	{
		Money s = 0;
		for (Money m : opening_)
			s += m;
		return s + deposits_ - withdrawals_ + interest_ - fees_;
	}
	Money interest() const { return interest_; }
	Money fees() const { return fees_; }

	// Replays the journal on plain balances: no virtual calls, no
	// exceptions; the rules of month() written out again.
	std::vector<Money> replay() const
	{
		std::vector<Money> bal = opening_;
		for (const Entry &e : journal_) {
			switch (e.op) {
			case Entry::DEPOSIT: bal[e.from] += e.amount; break;
			case Entry::WITHDRAW: bal[e.from] -= e.amount; break;
			case Entry::TRANSFER:
				bal[e.from] -= e.amount;
				bal[e.to] += e.amount;
				break;
			case Entry::MONTH:
				for (size_t i = 0; i < bal.size(); i++) {
					Money &b = bal[i];
					switch (i % 3) {
					case 0: b -= b >= 100000 ? 0 : 200; break;
					case 1: b += b > 0 ? b / 400 : 0; break;
					default: b += b < 0 ? b * 3 / 200 : 0; break;
					}
				}
				break;
			}
		}
		return bal;
	}

private:
	int lookup(const std::string &name) const
	{
		try {
			return by_name_.at(name);
		} catch (const std::out_of_range &) {
			throw UnknownAccount(name);
		}
	}

	static Money parse_amount(std::istream &in)
	{
		std::string s;
		if (!(in >> s))
			throw ParseError("missing amount");
		// d+ or d+.dd
		size_t dot = s.find('.');
		std::string whole = s.substr(0, dot), cents = dot == std::string::npos ? "00" : s.substr(dot + 1);
		auto digits = [](const std::string &t) {
			return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
		};
		if (!digits(whole) || !digits(cents) || cents.size() != 2 || whole.size() > 9)
			throw ParseError("bad amount '" + s + "'");
		return std::stoll(whole) * 100 + std::stoll(cents);
	}

	std::vector<std::unique_ptr<Account>> accounts_;
	std::map<std::string, int> by_name_;
	std::vector<Money> opening_;
	std::vector<Entry> journal_;
	std::unordered_map<std::string, int> memo_count_;
	Money deposits_ = 0, withdrawals_ = 0, interest_ = 0, fees_ = 0;
};

// (Each call of next_rand() is a statement of its own: the order in which
// the operands of + are evaluated is unspecified.)
std::string random_name(bool allow_unknown)
{
	if (allow_unknown && next_rand() % 50 == 0)
		return "mallory-c";
	std::string name = first_names[next_rand() % 15];
	name += '-';
	name += "csx"[next_rand() % 3];
	return name;
}

std::string random_amount()
{
	uint32_t cents = next_rand() % 40000;
	std::ostringstream s;
	s << cents / 100 << '.' << std::setw(2) << std::setfill('0') << cents % 100;
	return s.str();
}

// Returns a transaction line; *malformed says whether it was made so.
std::string random_line(bool *malformed)
{
	*malformed = false;
	uint32_t r = next_rand() % 1000;
	std::string line;
	if (r < 5) {
		*malformed = true;
		static const char *const bad[] = { "withdraw ada-c 12.3", "deposit grace-s ten",
			"refund ken-c 5.00", "transfer tony-x", "deposit 7.00" };
		return bad[next_rand() % 5];
	}
	if (r < 8) {
		line = "month";
	} else {
		line = r < 400 ? "deposit " : r < 700 ? "withdraw " : "transfer ";
		line += random_name(true);
		if (r >= 700) {
			line += ' ';
			line += random_name(true);
		}
		line += ' ';
		line += random_amount();
	}
	int words = static_cast<int>(next_rand() % 3);
	for (int i = 0; i < words; i++)
		line += std::string(" ") + memo_words[next_rand() % 10];
	return line;
}

std::string cents(Money m)
{
	std::ostringstream s;
	s << (m < 0 ? "-" : "") << (m < 0 ? -m : m) / 100 << '.' << std::setw(2) << std::setfill('0')
	  << (m < 0 ? -m : m) % 100;
	return s.str();
}

} // namespace

int main(int argc, char **argv)
{
	long n = 50000;
	if (argc > 1)
		n = std::atol(argv[1]);
	if (n < 1 || n > 100000000) {
		std::cout << "ledger: size must be 1..100000000\n";
		return 2;
	}

	Bank bank;
	std::map<std::string, long> errors; // by type, ordered for the report
	long malformed = 0;
	Money short_by = 0; // what the refused withdrawals lacked, in all
	for (long i = 0; i < n; i++) {
		bool bad;
		std::string line = random_line(&bad);
		malformed += bad;
		try {
			bank.apply(line);
		} catch (const ParseError &) {
			errors["parse error"]++;
		} catch (const InsufficientFunds &e) {
			errors["insufficient funds"]++;
			short_by += e.short_by;
		} catch (const std::runtime_error &e) {
			// UnknownAccount, caught through its base class.
			errors[dynamic_cast<const UnknownAccount *>(&e) ? "unknown account" : "other"]++;
		}
	}

	std::cout << "ledger n=" << n << "\n";
	std::map<std::string, std::pair<int, Money>> kinds;
	Money total = 0;
	for (const auto &a : bank.accounts()) {
		auto &k = kinds[a->kind_name()];
		k.first++;
		k.second += a->balance();
		total += a->balance();
	}
	for (const auto &[name, k] : kinds)
		std::cout << std::left << std::setw(9) << name << std::right << std::setw(3) << k.first
			  << " accounts " << std::setw(14) << cents(k.second) << "\n";
	std::cout << "total " << cents(total) << ", interest " << cents(bank.interest()) << ", fees "
		  << cents(bank.fees()) << "\n";

	std::vector<const Account *> order;
	for (const auto &a : bank.accounts())
		order.push_back(a.get());
	std::sort(order.begin(), order.end(), [](const Account *x, const Account *y) {
		return x->balance() != y->balance() ? x->balance() > y->balance() : x->name() < y->name();
	});
	std::cout << "richest:";
	for (size_t i = 0; i < 3; i++)
		std::cout << " " << order[i]->name() << " " << cents(order[i]->balance());
	std::cout << "\npoorest:";
	for (size_t i = order.size() - 3; i < order.size(); i++)
		std::cout << " " << order[i]->name() << " " << cents(order[i]->balance());
	std::cout << "\n";

	for (const auto &[what, count] : errors)
		std::cout << "errors: " << what << " " << count << "\n";
	std::cout << "refused withdrawals lacked " << cents(short_by) << "\n";

	// Memo words by frequency, ties by name: stable_sort of the
	// alphabetical order.
	std::set<std::string> words;
	for (const auto &wc : bank.memo_count())
		words.insert(wc.first);
	std::vector<std::pair<std::string, int>> freq;
	for (const auto &w : words)
		freq.emplace_back(w, bank.memo_count().at(w));
	std::stable_sort(freq.begin(), freq.end(),
			 [](const auto &x, const auto &y) { return x.second > y.second; });
	std::cout << "memos:";
	for (size_t i = 0; i < freq.size() && i < 4; i++)
		std::cout << " " << freq[i].first << "=" << freq[i].second;
	std::cout << "\n";

	// A digest of every balance, and the average in fixed point.
	uint64_t hash = 1469598103934665603ull;
	for (const auto &a : bank.accounts())
		hash = (hash ^ static_cast<uint64_t>(a->balance())) * 1099511628211ull;
	std::cout << "balances digest " << std::hex << std::setw(16) << std::setfill('0') << hash
		  << std::dec << std::setfill(' ') << ", mean " << std::fixed << std::setprecision(2)
		  << static_cast<double>(total) / 100 / static_cast<double>(order.size()) << "\n";

	bool ok = true;
	std::vector<Money> replayed = bank.replay();
	for (size_t i = 0; i < replayed.size(); i++)
		if (replayed[i] != bank.accounts()[i]->balance()) {
			std::cout << "FAIL: " << bank.accounts()[i]->name() << " replays to " << cents(replayed[i])
				  << ", has " << cents(bank.accounts()[i]->balance()) << "\n";
			ok = false;
			break;
		}
	if (total != bank.expected_total()) {
		std::cout << "FAIL: total " << cents(total) << ", expected " << cents(bank.expected_total()) << "\n";
		ok = false;
	}
	if (errors["parse error"] != malformed) {
		std::cout << "FAIL: " << errors["parse error"] << " parse errors, " << malformed
			  << " malformed lines\n";
		ok = false;
	}
	if (!ok)
		return 1;
	std::cout << "check ok\n";
	return 0;
}
