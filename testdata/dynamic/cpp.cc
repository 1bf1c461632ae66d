// A dynamically linked C++ program: iostreams, strings and containers from
// the shared libstdc++, virtual calls, and exceptions unwound across
// frames by the shared libgcc_s (a std::runtime_error from a nested call,
// a rethrow, a custom exception type, an exception escaping a destructor-
// carrying frame, and std::out_of_range thrown by the library itself).
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual std::string name() const = 0;
};

struct Rect : Shape {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  double area() const override { return w * h; }
  std::string name() const override { return "rect"; }
};

struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return 3.141592653589793 * r * r; }
  std::string name() const override { return "circle"; }
};

struct Square : Rect {
  explicit Square(double s) : Rect(s, s) {}
  std::string name() const override { return "square"; }
};

struct ParseError : std::exception {
  int pos;
  explicit ParseError(int pos) : pos(pos) {}
  const char *what() const noexcept override { return "parse error"; }
};

static int depth_counter = 0;

// Guard counts its destructions: unwinding must run them.
struct Guard {
  const char *tag;
  explicit Guard(const char *t) : tag(t) {}
  ~Guard() { depth_counter++; }
};

static int parse_digit(char c, int pos) {
  Guard g("digit");
  if (c < '0' || c > '9') throw ParseError(pos);
  return c - '0';
}

static int parse_number(const std::string &s) {
  Guard g("number");
  int v = 0;
  for (size_t i = 0; i < s.size(); i++) v = v * 10 + parse_digit(s[i], (int)i);
  return v;
}

static int checked_div(int a, int b) {
  if (b == 0) throw std::runtime_error("division by zero: " + std::to_string(a) + "/0");
  return a / b;
}

static int compute(int a, int b) {
  Guard g("compute");
  return checked_div(a, b) + 1;
}

static int middle(int a, int b) {
  try {
    return compute(a, b);
  } catch (const std::runtime_error &e) {
    std::cout << "middle saw: " << e.what() << ", rethrowing\n";
    throw;
  }
}

int main() {
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 1; i <= 6; i++) {
    if (i % 3 == 0) shapes.push_back(std::make_unique<Circle>(i * 0.5));
    else if (i % 3 == 1) shapes.push_back(std::make_unique<Rect>(i, i + 1.5));
    else shapes.push_back(std::make_unique<Square>(i));
  }
  std::sort(shapes.begin(), shapes.end(),
            [](const auto &a, const auto &b) { return a->area() < b->area(); });
  double total = 0;
  for (const auto &s : shapes) {
    std::cout << s->name() << " " << std::setprecision(17) << s->area() << "\n";
    total += s->area();
  }
  std::cout << "total " << std::fixed << std::setprecision(6) << total << std::defaultfloat << "\n";

  // std::map and std::unordered_map over words.
  std::string text = "the quick brown fox jumps over the lazy dog the fox sleeps and the dog barks";
  std::istringstream in(text);
  std::map<std::string, int> ordered;
  std::unordered_map<std::string, int> hashed;
  for (std::string w; in >> w;) {
    ordered[w]++;
    hashed[w] += (int)w.size();
  }
  for (const auto &[w, n] : ordered) std::cout << w << ":" << n << " ";
  std::cout << "\n";
  std::vector<std::pair<std::string, int>> hv(hashed.begin(), hashed.end());
  std::sort(hv.begin(), hv.end(), [](const auto &a, const auto &b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (size_t i = 0; i < 5; i++) std::cout << hv[i].first << "=" << hv[i].second << " ";
  std::cout << "(" << hashed.size() << " distinct)\n";

  // Strings.
  std::string s;
  for (int i = 0; i < 40; i++) s += static_cast<char>('a' + (i * 7) % 26);
  std::string r(s.rbegin(), s.rend());
  std::cout << s << " " << r.substr(5, 10) << " find=" << s.find("hov") << " npos=" << (s.find("zzz") == std::string::npos) << "\n";

  // Exceptions.
  for (const char *t : {"12345", "12x45", "7"}) {
    try {
      int v = parse_number(t);
      std::cout << "parse " << t << " = " << v << "\n";
    } catch (const ParseError &e) {
      std::cout << "parse " << t << ": " << e.what() << " at " << e.pos << "\n";
    }
  }
  std::cout << "guards destroyed " << depth_counter << "\n";
  try {
    std::cout << middle(10, 3) << "\n";
    std::cout << middle(10, 0) << "\n";
  } catch (const std::exception &e) {
    std::cout << "main caught: " << e.what() << "\n";
  }
  std::cout << "guards destroyed " << depth_counter << "\n";
  try {
    std::vector<int> v(3);
    std::cout << v.at(7) << "\n";
  } catch (const std::out_of_range &e) {
    std::cout << "out_of_range caught\n";
  }
  int caught = 0;
  for (int i = 0; i < 200; i++) {
    try {
      compute(i, i % 4);
    } catch (const std::runtime_error &) {
      caught++;
    }
  }
  std::cout << "caught " << caught << " of 200, guards destroyed " << depth_counter << "\n";
  return 0;
}
